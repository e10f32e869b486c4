/// Decodes raw XML character data (entity and character references, CDATA sections) the way
/// the reader does, for the layout scanner's look at dictionary keys.
enum XMLTextDecoding {
    static func decode(_ raw: Slice<UnsafeBufferPointer<UInt8>>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        var i = raw.startIndex
        let end = raw.endIndex
        let b = raw.base
        func startsWith(_ s: String, at k: Int) -> Bool {
            let u = Array(s.utf8)
            guard k + u.count <= end else { return false }
            return (0..<u.count).allSatisfy { b[k + $0] == u[$0] }
        }
        while i < end {
            let c = b[i]
            if c == UInt8(ascii: "<"), startsWith("<![CDATA[", at: i) {
                var k = i + 9
                while k + 2 < end, !(b[k] == UInt8(ascii: "]") && b[k + 1] == UInt8(ascii: "]") && b[k + 2] == UInt8(ascii: ">")) {
                    out.append(b[k])
                    k += 1
                }
                i = min(k + 3, end)
            } else if c == UInt8(ascii: "&") {
                var k = i + 1
                while k < end, b[k] != UInt8(ascii: ";") { k += 1 }
                let name = String(decoding: UnsafeBufferPointer(rebasing: b[(i + 1)..<k]), as: UTF8.self)
                switch name {
                case "lt": out.append(UInt8(ascii: "<"))
                case "gt": out.append(UInt8(ascii: ">"))
                case "amp": out.append(UInt8(ascii: "&"))
                case "apos": out.append(UInt8(ascii: "'"))
                case "quot": out.append(UInt8(ascii: "\""))
                default:
                    var digits = Substring(name.dropFirst())
                    var radix = 10
                    if digits.hasPrefix("x") {
                        digits = digits.dropFirst()
                        radix = 16
                    }
                    if name.hasPrefix("#"), let v = UInt32(digits, radix: radix), v < 0x110000 {
                        UnicodeTranscoder.appendUTF8(codePoint: v, to: &out)
                    }
                }
                i = min(k + 1, end)
            } else {
                out.append(c)
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
