#include "encoders.h"

#include <native_loader.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <png.h>
#include <webp/encode.h>

#include "page_tables.h"

#define DOCPREVIEW_JPEG "libjpeg.so.62"
#define DOCPREVIEW_PNG "libpng16.so.16"
#define DOCPREVIEW_WEBP "libwebp.so.7"
_Static_assert(JPEG_LIB_VERSION == 62, "update DOCPREVIEW_JPEG to the headers' ABI version");
_Static_assert(PNG_LIBPNG_VER_SONUM == 16, "update DOCPREVIEW_PNG to the headers' ABI version");

DOCPREVIEW_LAZY(DOCPREVIEW_JPEG, jpeg_std_error)
DOCPREVIEW_LAZY(DOCPREVIEW_JPEG, jpeg_CreateCompress)
DOCPREVIEW_LAZY(DOCPREVIEW_JPEG, jpeg_mem_dest)
DOCPREVIEW_LAZY(DOCPREVIEW_JPEG, jpeg_set_defaults)
DOCPREVIEW_LAZY(DOCPREVIEW_JPEG, jpeg_set_quality)
DOCPREVIEW_LAZY(DOCPREVIEW_JPEG, jpeg_start_compress)
DOCPREVIEW_LAZY(DOCPREVIEW_JPEG, jpeg_write_scanlines)
DOCPREVIEW_LAZY(DOCPREVIEW_JPEG, jpeg_finish_compress)
DOCPREVIEW_LAZY(DOCPREVIEW_JPEG, jpeg_destroy_compress)
DOCPREVIEW_LAZY(DOCPREVIEW_JPEG, jpeg_alloc_huff_table)
DOCPREVIEW_LAZY(DOCPREVIEW_PNG, png_image_write_to_memory)
DOCPREVIEW_LAZY(DOCPREVIEW_PNG, png_image_free)
DOCPREVIEW_LAZY(DOCPREVIEW_WEBP, WebPEncodeRGB)
DOCPREVIEW_LAZY(DOCPREVIEW_WEBP, WebPFree)

/// libjpeg reports errors by calling error_exit, which must not return: it jumps back here.
struct jpeg_failure {
    struct jpeg_error_mgr manager;
    jmp_buf back;
};

static void jpeg_failed(j_common_ptr info) { longjmp(((struct jpeg_failure *)info->err)->back, 1); }
static void jpeg_silent(j_common_ptr info, int level) { (void)info; (void)level; }

/// Puts a fixed table in `slot`, to be written into the file.
static void use_table(j_compress_ptr info, JHUFF_TBL **slot, const UINT8 bits[17], const UINT8 *values, size_t count) {
    if (!*slot) *slot = lazy_jpeg_alloc_huff_table()((j_common_ptr)info);
    memcpy((*slot)->bits, bits, 17);
    memcpy((*slot)->huffval, values, count);
    (*slot)->sent_table = FALSE;
}

int docpreview_encode_jpeg(const unsigned char *rgb, int width, int height, int quality, docpreview_jpeg_tables tables,
                           unsigned char **out, size_t *length) {
    struct jpeg_compress_struct info;
    struct jpeg_failure failure;
    // jpeg_mem_dest grows its own buffer with malloc; volatile because it is read after a longjmp.
    unsigned char *volatile buffer = NULL;
    unsigned long size = 0;
    *out = NULL;
    *length = 0;
    info.err = lazy_jpeg_std_error()(&failure.manager);
    failure.manager.error_exit = jpeg_failed;
    failure.manager.emit_message = jpeg_silent;
    if (setjmp(failure.back)) {
        lazy_jpeg_destroy_compress()(&info);
        free(buffer);
        return -1;
    }
    lazy_jpeg_CreateCompress()(&info, JPEG_LIB_VERSION, sizeof(info));
    lazy_jpeg_mem_dest()(&info, (unsigned char **)&buffer, &size);
    info.image_width = (JDIMENSION)width;
    info.image_height = (JDIMENSION)height;
    info.input_components = 3;
    info.in_color_space = JCS_RGB;
    lazy_jpeg_set_defaults()(&info);
    lazy_jpeg_set_quality()(&info, quality, TRUE);
    if (tables == DOCPREVIEW_JPEG_PAGE_TABLES) {
        use_table(&info, &info.dc_huff_tbl_ptrs[0], page_dc_luma_bits, page_dc_luma_values, sizeof(page_dc_luma_values));
        use_table(&info, &info.ac_huff_tbl_ptrs[0], page_ac_luma_bits, page_ac_luma_values, sizeof(page_ac_luma_values));
        use_table(&info, &info.dc_huff_tbl_ptrs[1], page_dc_chroma_bits, page_dc_chroma_values, sizeof(page_dc_chroma_values));
        use_table(&info, &info.ac_huff_tbl_ptrs[1], page_ac_chroma_bits, page_ac_chroma_values, sizeof(page_ac_chroma_values));
    } else {
        info.optimize_coding = TRUE;
    }
    info.write_JFIF_header = TRUE;
    lazy_jpeg_start_compress()(&info, TRUE);
    while (info.next_scanline < info.image_height) {
        JSAMPROW row = (JSAMPROW)(rgb + (size_t)info.next_scanline * (size_t)width * 3);
        lazy_jpeg_write_scanlines()(&info, &row, 1);
    }
    lazy_jpeg_finish_compress()(&info);
    lazy_jpeg_destroy_compress()(&info);
    *out = buffer;
    *length = size;
    return 0;
}

int docpreview_encode_png(const unsigned char *rgb, int width, int height, unsigned char **out, size_t *length) {
    png_image image;
    memset(&image, 0, sizeof(image));
    image.version = PNG_IMAGE_VERSION;
    image.width = (png_uint_32)width;
    image.height = (png_uint_32)height;
    image.format = PNG_FORMAT_RGB;
    *out = NULL;
    *length = 0;
    // The simplified API sizes the output first, then writes it.
    png_alloc_size_t size = 0;
    if (!lazy_png_image_write_to_memory()(&image, NULL, &size, 0, rgb, 0, NULL)) {
        lazy_png_image_free()(&image);
        return -1;
    }
    unsigned char *buffer = malloc(size ? size : 1);
    if (!buffer || !lazy_png_image_write_to_memory()(&image, buffer, &size, 0, rgb, 0, NULL)) {
        lazy_png_image_free()(&image);
        free(buffer);
        return -1;
    }
    *out = buffer;
    *length = size;
    return 0;
}

int docpreview_encode_webp(const unsigned char *rgb, int width, int height, int quality, unsigned char **out, size_t *length) {
    uint8_t *encoded = NULL;
    size_t size = lazy_WebPEncodeRGB()(rgb, width, height, width * 3, (float)quality, &encoded);
    *out = NULL;
    *length = 0;
    if (size == 0 || !encoded) return -1;
    // Handed over as malloc memory, like the others: the caller frees all three alike.
    unsigned char *buffer = malloc(size);
    if (buffer) memcpy(buffer, encoded, size);
    lazy_WebPFree()(encoded);
    if (!buffer) return -1;
    *out = buffer;
    *length = size;
    return 0;
}

#define DOCPREVIEW_STRING(x) #x
#define DOCPREVIEW_VALUE(x) DOCPREVIEW_STRING(x)

const char *docpreview_encoder_versions(void) {
    return "libjpeg-turbo " DOCPREVIEW_VALUE(LIBJPEG_TURBO_VERSION) ", libpng " PNG_LIBPNG_VER_STRING
           ", libwebp abi " DOCPREVIEW_VALUE(WEBP_ENCODER_ABI_VERSION);
}
