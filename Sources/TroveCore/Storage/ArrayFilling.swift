extension Array where Element: BitwiseCopyable {
    /// An array of `count` copies of `element`, made as `init(repeating:count:)` makes it, but
    /// allocated through the code specialized for the element type.
    ///
    /// `init(repeating:count:)` and `init(unsafeUninitializedCapacity:initializingWith:)`
    /// allocate in the standard library's unspecialized code, which looks the storage's type up
    /// in the runtime on every call: a few hundred instructions, which is most of what a small
    /// file's lossless read adds per array. `reserveCapacity` is specialized, and the repeated
    /// element is then appended with vector stores, which also beats the `memset` of a large
    /// array.
    ///
    /// - Complexity: O(*n*), where *n* is `count`.
    @inline(__always)
    init(filledWith element: Element, count: Int) {
        self = []
        reserveCapacity(count)
        append(contentsOf: repeatElement(element, count: count))
    }
}
