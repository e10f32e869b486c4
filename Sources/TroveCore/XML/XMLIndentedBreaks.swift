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

    /// The break and `depth` units.
    @inline(__always)
    func append(depth: Int, to out: inout ByteBuffer) {
        guard depth <= Self.precomputedDepth else {
            out.append(contentsOf: lineBreak)
            for _ in 0..<depth { out.append(contentsOf: unit) }
            return
        }
        let length = lineBreak.count + depth * unit.count
        prefix.withUnsafeBufferPointer { out.append(contentsOf: UnsafeBufferPointer(rebasing: $0[..<length])) }
    }

    /// Whether `s` is exactly the break and `depth` units.
    func matches(_ s: Slice<UnsafeBufferPointer<UInt8>>, depth: Int) -> Bool {
        guard s.count == lineBreak.count + depth * unit.count else { return false }
        guard depth <= Self.precomputedDepth else {
            guard s.starts(with: lineBreak) else { return false }
            var k = s.startIndex + lineBreak.count
            for _ in 0..<depth {
                guard s[k..<(k + unit.count)].elementsEqual(unit) else { return false }
                k += unit.count
            }
            return true
        }
        guard let base = s.base.baseAddress, !s.isEmpty else { return true }
        return prefix.withUnsafeBufferPointer { memcmp(base + s.startIndex, $0.baseAddress!, s.count) == 0 }
    }
}
