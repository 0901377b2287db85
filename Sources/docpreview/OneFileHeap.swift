import CProcessControl

/// The heap of `render`, which renders one file on the main thread and exits: its large blocks
/// come from heap backed by transparent huge pages (`docpreview_use_huge_page_heap`). A cold 1024 px
/// PDF page otherwise takes ~1,300 page faults for its bitmap alone (measured: 21.8 against 25.5 ms
/// per page; a 1080p video frame 43 against 50 ms).
enum OneFileHeap {
    /// Room for a page's bitmaps and encoder buffers at the default widths, or a 4K video frame;
    /// bigger blocks are mapped as before. Reserve that is never touched costs no memory.
    static let reserve = 64 << 20

    /// Call on the main thread before the first large allocation. Best effort: where it cannot
    /// apply (no contiguous heap, huge pages off), nothing changes.
    static func prepare() {
        _ = docpreview_use_huge_page_heap(reserve)
    }
}
