#!/usr/bin/env python3
"""Writes the IIIF validator's test image (its ValidationInfo.colorInfo: a 10×10 grid of 100 px
squares, 1000×1000) as grid.png, grid.pdf (one 120 pt page: 1000 px at 600 dpi) and grid.odt (a
page of the same size holding the image edge to edge) into the folder named on the command line.
    scripts/make-iiif-grid.py DIR      (needs Pillow and the validator: scripts/iiif-validate installs both)"""
import os
import sys
import zipfile

from PIL import Image
from iiif_validator.validator import ValidationInfo

folder = sys.argv[1]
colors = ValidationInfo().colorInfo
grid = Image.new("RGB", (1000, 1000))
for x in range(10):
    for y in range(10):
        grid.paste(colors[x][y], (x * 100, y * 100, x * 100 + 100, y * 100 + 100))
grid.save(os.path.join(folder, "grid.png"))
grid.save(os.path.join(folder, "grid.pdf"), resolution=600.0)

side = "1.6667in"  # 1000 px at 600 dpi
namespaces = ('xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
              'xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" '
              'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
              'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" '
              'xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" '
              'xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0" '
              'xmlns:xlink="http://www.w3.org/1999/xlink" office:version="1.2"')
styles = (f'<?xml version="1.0" encoding="UTF-8"?><office:document-styles {namespaces}><office:automatic-styles>'
          f'<style:page-layout style:name="pm1"><style:page-layout-properties fo:page-width="{side}" fo:page-height="{side}" '
          'fo:margin-top="0in" fo:margin-bottom="0in" fo:margin-left="0in" fo:margin-right="0in"/></style:page-layout>'
          '</office:automatic-styles><office:master-styles><style:master-page style:name="Standard" style:page-layout-name="pm1"/>'
          '</office:master-styles></office:document-styles>')
content = (f'<?xml version="1.0" encoding="UTF-8"?><office:document-content {namespaces}><office:body><office:text><text:p>'
           f'<draw:frame draw:name="grid" text:anchor-type="page" text:anchor-page-number="1" svg:x="0in" svg:y="0in" '
           f'svg:width="{side}" svg:height="{side}"><draw:image xlink:href="Pictures/grid.png" xlink:type="simple" '
           'xlink:show="embed" xlink:actuate="onLoad"/></draw:frame></text:p></office:text></office:body></office:document-content>')
manifest = ('<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" '
            'manifest:version="1.2"><manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.text"/>'
            '<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>'
            '<manifest:file-entry manifest:full-path="styles.xml" manifest:media-type="text/xml"/>'
            '<manifest:file-entry manifest:full-path="Pictures/grid.png" manifest:media-type="image/png"/></manifest:manifest>')
with zipfile.ZipFile(os.path.join(folder, "grid.odt"), "w") as odt:
    odt.writestr(zipfile.ZipInfo("mimetype"), "application/vnd.oasis.opendocument.text")
    odt.writestr("content.xml", content, zipfile.ZIP_DEFLATED)
    odt.writestr("styles.xml", styles, zipfile.ZIP_DEFLATED)
    odt.writestr("META-INF/manifest.xml", manifest, zipfile.ZIP_DEFLATED)
    odt.write(os.path.join(folder, "grid.png"), "Pictures/grid.png")
