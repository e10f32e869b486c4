extension Array where Element: BitwiseCopyable {
    /// An array of `count` copies of `element`, as `init(repeating:count:)` makes it, without
    /// that initializer's fixed cost for a short array.
    ///
    /// `init(repeating:count:)` and `init(unsafeUninitializedCapacity:initializingWith:)`
    /// allocate in the standard library's unspecialized code, which looks the storage's type up
    /// in the runtime on every call: a few hundred instructions, which is much of what a small
    /// file's lossless read adds per array. `reserveCapacity` is specialized, so a short array is
    /// reserved and the repetition appended; a long one is filled faster by `init(repeating:count:)`'s
    /// `memset` than by the appends, and there the lookup does not matter.
    ///
    /// - Complexity: O(*n*), where *n* is `count`.
    @inline(__always)
    init(filledWith element: Element, count: Int) {
        guard count <= Self.appendedFillLimit else {
            self.init(repeating: element, count: count)
            return
        }
        self = []
        reserveCapacity(count)
        append(contentsOf: repeatElement(element, count: count))
    }

    /// The longest array ``init(filledWith:count:)`` fills by appending.
    static var appendedFillLimit: Int { 1024 }
}
