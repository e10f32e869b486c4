import Foundation

/// A document's line break followed by its indentation at some depth: what the XML writer puts
/// before each element and what the layout scanner compares the gaps between elements with.
///
/// The break with `precomputedDepth` units after it is built once, so that the break at any
/// depth up to that is a prefix of it: one append when writing, one `memcmp` when scanning,
/// rather than one step per level.
struct XMLIndentedBreaks {
    let lineBreak: [UInt8]
    let unit: [UInt8]
    /// `lineBreak` followed by `precomputedDepth` copies of `unit`.
    private let prefix: [UInt8]

    static let precomputedDepth = 64
    /// CoreFoundation's: a newline, and a tab per level.
    static let canonical = XMLIndentedBreaks(lineBreak: [0x0A], unit: [0x09])

    init(lineBreak: [UInt8], unit: [UInt8]) {
        self.lineBreak = lineBreak
        self.unit = unit
        prefix = lineBreak + Array(repeatElement(unit, count: Self.precomputedDepth).joined())
    }

    /// The break and `depth` units: the precomputed run once, then as many more pieces of it as
    /// a deeper level needs, so a line at depth 200 is four appends rather than 200.
    @inline(__always)
    func append(depth: Int, to out: inout ByteBuffer) {
        let head = lineBreak.count
        prefix.withUnsafeBufferPointer { run in
            let first = Swift.min(depth, Self.precomputedDepth)
            out.append(contentsOf: UnsafeBufferPointer(rebasing: run[..<(head + first * unit.count)]))
            var left = depth - first
            while left > 0 {
                let step = Swift.min(left, Self.precomputedDepth)
                out.append(contentsOf: UnsafeBufferPointer(rebasing: run[head..<(head + step * unit.count)]))
                left -= step
            }
        }
    }

    /// Whether `s` is exactly the break and `depth` units.
    func matches(_ s: Slice<UnsafeBufferPointer<UInt8>>, depth: Int) -> Bool {
        guard s.count == lineBreak.count + depth * unit.count else { return false }
        guard let base = s.base.baseAddress, !s.isEmpty else { return true }
        let head = lineBreak.count
        return prefix.withUnsafeBufferPointer { run in
            let first = Swift.min(depth, Self.precomputedDepth)
            var position = base + s.startIndex
            var length = head + first * unit.count
            guard memcmp(position, run.baseAddress!, length) == 0 else { return false }
            var left = depth - first
            while left > 0 {
                position += length
                let step = Swift.min(left, Self.precomputedDepth)
                length = step * unit.count
                guard memcmp(position, run.baseAddress! + head, length) == 0 else { return false }
                left -= step
            }
            return true
        }
    }
}
