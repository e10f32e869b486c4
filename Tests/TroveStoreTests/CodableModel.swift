import Foundation
import TroveTestSupport

// Codable types of many shapes, and a seeded generator of their values, for comparing Trove's
// coders with Foundation's. Values are compared through Foundation's binary encoding (bit for
// bit, so NaN, -0.0 and Float widths count), never with `==`.

/// Every scalar Codable knows, plus the types Foundation special-cases.
struct Scalars: Codable {
    var int: Int
    var int8: Int8
    var int16: Int16
    var int32: Int32
    var int64: Int64
    var uint: UInt
    var uint8: UInt8
    var uint16: UInt16
    var uint32: UInt32
    var uint64: UInt64
    var float: Float
    var double: Double
    var bool: Bool
    var string: String
    var date: Date
    var data: Data
    var url: URL
}

enum Shape: Codable {
    case point
    case circle(radius: Double)
    case polygon([Int], name: String?)
    case labelled(String, Int8)
}

enum Color: String, Codable {
    case red, green, blue
}

class Animal: Codable {
    var name: String
    var legs: Int?

    init(name: String, legs: Int?) {
        self.name = name
        self.legs = legs
    }
}

/// A subclass that stores its superclass under `super`, as Codable classes usually do.
final class Dog: Animal {
    var breed: String
    var tags: [String]

    private enum CodingKeys: String, CodingKey {
        case breed, tags
    }

    init(name: String, legs: Int?, breed: String, tags: [String]) {
        self.breed = breed
        self.tags = tags
        super.init(name: name, legs: legs)
    }

    required init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        breed = try container.decode(String.self, forKey: .breed)
        tags = try container.decode([String].self, forKey: .tags)
        try super.init(from: container.superDecoder())
    }

    override func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(breed, forKey: .breed)
        try super.encode(to: container.superEncoder())
        try container.encode(tags, forKey: .tags)
    }
}

/// Hand-written coding through nested containers, an unkeyed `superEncoder`, `encodeNil` and
/// a keyed `superEncoder(forKey:)`.
struct Handwritten: Codable {
    var values: [Int]
    var label: String?
    var inner: Double

    private enum CodingKeys: String, CodingKey {
        case values, label, nested, extra
    }

    private enum InnerKeys: String, CodingKey {
        case inner, list
    }

    init(values: [Int], label: String?, inner: Double) {
        self.values = values
        self.label = label
        self.inner = inner
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        var list = container.nestedUnkeyedContainer(forKey: .values)
        for value in values { try list.encode(value) }
        try list.encodeNil()
        var nested = container.nestedContainer(keyedBy: InnerKeys.self, forKey: .nested)
        try nested.encode(inner, forKey: .inner)
        var innerList = nested.nestedUnkeyedContainer(forKey: .list)
        var deeper = innerList.nestedContainer(keyedBy: InnerKeys.self)
        try deeper.encode(inner, forKey: .inner)
        try innerList.encode(true)
        if let label {
            try container.encode(label, forKey: .label)
        } else {
            try container.encodeNil(forKey: .label)
        }
        let extra = container.superEncoder(forKey: .extra)
        var single = extra.singleValueContainer()
        try single.encode(values.count)
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        var list = try container.nestedUnkeyedContainer(forKey: .values)
        var values: [Int] = []
        while !list.isAtEnd {
            if try list.decodeNil() { continue }
            values.append(try list.decode(Int.self))
        }
        self.values = values
        label = try container.decodeNil(forKey: .label) ? nil : try container.decode(String.self, forKey: .label)
        let nested = try container.nestedContainer(keyedBy: InnerKeys.self, forKey: .nested)
        inner = try nested.decode(Double.self, forKey: .inner)
        let count = try container.superDecoder(forKey: .extra).singleValueContainer().decode(Int.self)
        guard count == values.count else {
            throw DecodingError.dataCorruptedError(forKey: .extra, in: container, debugDescription: "count")
        }
    }
}

/// The top-level shape of the generated documents.
struct Document: Codable {
    var title: String
    var scalars: [Scalars]
    var optionals: [Int?]
    var nestedOptionals: [String??]
    var byName: [String: Int]
    var byNumber: [Int: String]
    var shapes: [Shape]
    var colors: [Color]
    var animals: [Animal]
    var dogs: [Dog]
    var handwritten: Handwritten
    var matrix: [[Double]]
    var emptyArray: [String]
    var emptyDictionary: [String: Date]
    var note: String?
    var missing: Int?
    var blobs: [String: Data]
}

/// Seeded values of the model: extremes of every integer width, special reals, dates before
/// 1970 and after 3000, non-ASCII and long strings, empty containers. (The string "$null" is
/// left out: it decodes as nil in both coders, so a document holding it does not come back;
/// the tests check it on its own.)
struct ModelGenerator {
    var random: SplitMix

    init(seed: UInt64) { random = SplitMix(seed: seed &* 0x2545_F491_4F6C_DD1D &+ 17) }

    mutating func pick<T>(_ choices: [T]) -> T { choices[random.below(choices.count)] }

    mutating func integer<T: FixedWidthInteger>(_ type: T.Type) -> T {
        switch random.below(5) {
        case 0: return T.min
        case 1: return T.max
        case 2: return 0
        case 3: return T(truncatingIfNeeded: random.next())
        default: return T(truncatingIfNeeded: random.below(300)) &- (T.isSigned ? 150 : 0)
        }
    }

    mutating func double() -> Double {
        pick([0.0, -0.0, 1.0, 0.1, -2.5, .infinity, -.infinity, .nan, 1e300, -1e-300, .pi, 123_456_789.0,
              Double(bitPattern: random.next() & 0x7FEF_FFFF_FFFF_FFFF), 1e16, .leastNonzeroMagnitude])
    }

    mutating func float() -> Float {
        pick([Float(0), -0.0, 1, 0.1, .infinity, -.infinity, .nan, .greatestFiniteMagnitude, .leastNonzeroMagnitude,
              Float(bitPattern: UInt32(truncatingIfNeeded: random.next()) & 0x7F7F_FFFF)])
    }

    mutating func string() -> String {
        switch random.below(9) {
        case 0: return ""
        case 1: return "null"
        case 2: return "café \u{1F600} naïve"
        case 3: return "e\u{301}"
        case 4: return String(repeating: "x", count: 14 + random.below(4))
        case 5: return "<tag> & \"quote\" 'apostrophe'"
        case 6: return "K\u{212A}"
        case 7: return "line\nbreak\ttab"
        default: return "s\(random.below(50))"
        }
    }

    mutating func date() -> Date {
        Date(timeIntervalSinceReferenceDate: pick([
            0, -0.5, 1.75, 86_399.999, -978_307_200, 32_000_000_000, -63_114_076_800, -63_114_076_801,
            Double(random.below(2_000_000_000)) - 1_000_000_000, Date.distantPast.timeIntervalSinceReferenceDate,
            Date.distantFuture.timeIntervalSinceReferenceDate,
        ]))
    }

    mutating func data() -> Data {
        let count = pick([0, 1, 2, 3, 15, 16, 57, 58, 100, 300])
        return Data((0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) })
    }

    mutating func url() -> URL {
        pick([URL(string: "https://example.com/a?b=c")!, URL(string: "relative/path")!, URL(fileURLWithPath: "/tmp/x y")])
    }

    mutating func scalars() -> Scalars {
        Scalars(
            int: integer(Int.self), int8: integer(Int8.self), int16: integer(Int16.self), int32: integer(Int32.self),
            int64: integer(Int64.self), uint: integer(UInt.self), uint8: integer(UInt8.self), uint16: integer(UInt16.self),
            uint32: integer(UInt32.self), uint64: integer(UInt64.self), float: float(), double: double(),
            bool: random.below(2) == 0, string: string(), date: date(), data: data(), url: url())
    }

    mutating func shape() -> Shape {
        switch random.below(4) {
        case 0: return .point
        case 1: return .circle(radius: double())
        case 2: return .polygon((0..<random.below(4)).map { _ in integer(Int.self) }, name: random.below(2) == 0 ? nil : string())
        default: return .labelled(string(), integer(Int8.self))
        }
    }

    mutating func count(_ limit: Int) -> Int { random.below(limit + 1) }

    mutating func document() -> Document {
        var byName: [String: Int] = [:]
        for _ in 0..<count(20) { byName[string() + "\(random.below(100))"] = integer(Int.self) }
        var byNumber: [Int: String] = [:]
        for _ in 0..<count(4) { byNumber[integer(Int.self)] = string() }
        var blobs: [String: Data] = [:]
        for _ in 0..<count(3) { blobs[string()] = data() }
        return Document(
            title: string(),
            scalars: (0..<1 + count(3)).map { _ in scalars() },
            optionals: (0..<count(5)).map { _ in random.below(3) == 0 ? nil : integer(Int.self) },
            nestedOptionals: (0..<count(4)).map { _ in pick([nil, .some(nil), .some(.some(string()))]) },
            byName: byName,
            byNumber: byNumber,
            shapes: (0..<count(4)).map { _ in shape() },
            colors: (0..<count(3)).map { _ in pick([.red, .green, .blue]) },
            animals: (0..<count(2)).map { _ in Animal(name: string(), legs: random.below(2) == 0 ? nil : random.below(8)) },
            dogs: (0..<count(2)).map { _ in Dog(name: string(), legs: 4, breed: string(), tags: (0..<count(3)).map { _ in string() }) },
            handwritten: Handwritten(
                values: (0..<count(4)).map { _ in integer(Int.self) }, label: random.below(2) == 0 ? nil : string(), inner: double()),
            matrix: (0..<count(3)).map { _ in (0..<count(3)).map { _ in double() } },
            emptyArray: [],
            emptyDictionary: [:],
            note: random.below(2) == 0 ? nil : string(),
            missing: nil,
            blobs: blobs)
    }
}
