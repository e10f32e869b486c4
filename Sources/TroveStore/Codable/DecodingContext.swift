import Foundation
import TroveCore

/// Which of Foundation's decoders a document would have gone through; they word a few errors
/// and convert reals differently.
enum DecodingFlavor {
    /// Binary documents, and values handed over as ``PlistValue``: exact conversions only.
    case binary
    /// XML documents: a real converts to `Float` by rounding, and out-of-range reals are
    /// "Parsed property list number" errors.
    case xml
    /// OpenStep documents, whose scalars are all strings: Foundation's dictionary-based decoder,
    /// which calls a string "a string/data".
    case openStep
}

/// The `Decoder` a type's `init(from:)` talks to, for the whole of one `PlistDecoder` call.
///
/// It decodes straight from the ``PlistValue`` tree: the current value is a field, and entering
/// a nested value swaps it in and out again, so the only allocation a nested struct costs is
/// one coding-path step (and the container box the standard library makes).
final class DecodingContext: Decoder {
    // Used from one thread and never in overlapping accesses: unchecked exclusivity saves the
    // dynamic checks on every nested value.
    /// The value being decoded.
    @exclusivity(unchecked) var value: PlistValue
    /// Its coding path.
    @exclusivity(unchecked) var node: CodingPathNode?
    let userInfo: [CodingUserInfoKey: Any]
    let flavor: DecodingFlavor

    init(value: PlistValue, node: CodingPathNode?, userInfo: [CodingUserInfoKey: Any], flavor: DecodingFlavor) {
        self.value = value
        self.node = node
        self.userInfo = userInfo
        self.flavor = flavor
    }

    var codingPath: [any CodingKey] { CodingPathNode.path(node) }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .dictionary(let dictionary) = value else {
            if value.isCodableNull {
                throw DecodingError.valueNotFound([String: Any].self, DecodingError.Context(
                    codingPath: codingPath, debugDescription: "Cannot get keyed decoding container -- found null value instead"))
            }
            throw typeMismatch([String: Any].self, value, path: codingPath)
        }
        return KeyedDecodingContainer(PlistKeyedDecodingContainer<Key>(decoder: self, node: node, dictionary: dictionary))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else {
            if value.isCodableNull {
                throw DecodingError.valueNotFound([Any].self, DecodingError.Context(
                    codingPath: codingPath, debugDescription: "Cannot get unkeyed decoding container -- found null value instead"))
            }
            throw typeMismatch([Any].self, value, path: codingPath)
        }
        return PlistUnkeyedDecodingContainer(decoder: self, node: node, elements: elements)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    /// Runs `body` with `value` at `node` as the current value.
    @inline(__always)
    func with<R>(_ value: PlistValue, node: CodingPathNode?, _ body: () throws -> R) rethrows -> R {
        let savedValue = self.value
        let savedNode = self.node
        self.value = value
        self.node = node
        defer {
            self.value = savedValue
            self.node = savedNode
        }
        return try body()
    }

    // MARK: - Values

    /// Decodes a `T` from `value`, found at `parent` plus `step`.
    ///
    /// Scalars, `Date` and `Data` are read directly, with what their `init(from:)` would give
    /// through a single-value container; anything else runs its `init(from:)` on this decoder.
    func unwrap<T: Decodable>(_ value: PlistValue, as type: T.Type, parent: CodingPathNode?, step: CodingPathStep?) throws -> T {
        if let scalar = try unwrapScalar(value, as: type, parent: parent, step: step) { return scalar }
        if let array = arrayType(T.self), case .array(let elements) = value {
            return try array.decode(elements, as: T.self, from: self, path: CodingPathNode.appending(parent, step))
        }
        return try with(value, node: CodingPathNode.appending(parent, step)) { try T(from: self) }
    }

    /// The elements of a `[Element]` at `path`: what the array's own `init(from:)` gets through
    /// an unkeyed container (the same values, errors and paths), without the container and the
    /// dynamic dispatch per element. Anything but an array goes through `init(from:)`, for its
    /// errors.
    func decodeElements<Element: Decodable>(_ elements: [PlistValue], as type: Element.Type, path: CodingPathNode?) throws -> [Element] {
        var result: [Element] = []
        result.reserveCapacity(elements.count)
        // An index loop: `enumerated()` over elements of a type only known at run time looks up
        // the metadata of its sequence, iterator and tuple types at every call.
        var index = 0
        while index < elements.count {
            result.append(try unwrap(elements[index], as: Element.self, parent: path, step: .index(index)))
            index += 1
        }
        return result
    }

    /// Which types are arrays the decoder fills itself.
    @exclusivity(unchecked) private var arrayTypes = TypeMemo<(any DecodedArray.Type)?>()

    @inline(__always)
    private func arrayType<T>(_ type: T.Type) -> (any DecodedArray.Type)? {
        arrayTypes.answer(for: type) { $0 as? any DecodedArray.Type }
    }

    @inline(__always)
    private func unwrapScalar<T>(_ value: PlistValue, as type: T.Type, parent: CodingPathNode?, step: CodingPathStep?) throws -> T? {
        func cast<U>(_ result: U) -> T { unsafeBitCast(result, to: T.self) }
        if T.self == String.self { return cast(try unwrapString(value, parent: parent, step: step)) }
        if T.self == Int.self { return cast(try unwrapInteger(value, as: Int.self, parent: parent, step: step)) }
        if T.self == Double.self { return cast(try unwrapFloatingPoint(value, as: Double.self, parent: parent, step: step)) }
        if T.self == Bool.self { return cast(try unwrapBool(value, parent: parent, step: step)) }
        if T.self == Date.self { return cast(try unwrapDate(value, parent: parent, step: step)) }
        if T.self == Data.self { return cast(try unwrapData(value, parent: parent, step: step)) }
        if T.self == Int64.self { return cast(try unwrapInteger(value, as: Int64.self, parent: parent, step: step)) }
        if T.self == Float.self { return cast(try unwrapFloatingPoint(value, as: Float.self, parent: parent, step: step)) }
        if T.self == UInt64.self { return cast(try unwrapInteger(value, as: UInt64.self, parent: parent, step: step)) }
        if T.self == UInt.self { return cast(try unwrapInteger(value, as: UInt.self, parent: parent, step: step)) }
        if T.self == Int32.self { return cast(try unwrapInteger(value, as: Int32.self, parent: parent, step: step)) }
        if T.self == UInt32.self { return cast(try unwrapInteger(value, as: UInt32.self, parent: parent, step: step)) }
        if T.self == Int16.self { return cast(try unwrapInteger(value, as: Int16.self, parent: parent, step: step)) }
        if T.self == UInt16.self { return cast(try unwrapInteger(value, as: UInt16.self, parent: parent, step: step)) }
        if T.self == Int8.self { return cast(try unwrapInteger(value, as: Int8.self, parent: parent, step: step)) }
        if T.self == UInt8.self { return cast(try unwrapInteger(value, as: UInt8.self, parent: parent, step: step)) }
        return nil
    }

    @inline(__always)
    private func checkNotNull<T>(_ value: PlistValue, _ type: T.Type, parent: CodingPathNode?, step: CodingPathStep?) throws {
        if value.isCodableNull {
            throw DecodingError.valueNotFound(type, DecodingError.Context(
                codingPath: CodingPathNode.path(parent, appending: step),
                debugDescription: "Cannot get value of \(type) -- found null value instead"))
        }
    }

    func unwrapBool(_ value: PlistValue, parent: CodingPathNode?, step: CodingPathStep?) throws -> Bool {
        if case .bool(let result) = value { return result }
        try checkNotNull(value, Bool.self, parent: parent, step: step)
        throw typeMismatch(Bool.self, value, path: CodingPathNode.path(parent, appending: step))
    }

    func unwrapString(_ value: PlistValue, parent: CodingPathNode?, step: CodingPathStep?) throws -> String {
        if case .string(let result) = value, !PlistValue.isNullSpelling(result) { return result }
        try checkNotNull(value, String.self, parent: parent, step: step)
        throw typeMismatch(String.self, value, path: CodingPathNode.path(parent, appending: step))
    }

    func unwrapDate(_ value: PlistValue, parent: CodingPathNode?, step: CodingPathStep?) throws -> Date {
        if case .date(let date) = value {
            let seconds = date.secondsSinceReferenceDate
            if flavor == .xml && seconds < CodableXMLWriter.gregorianCutover {
                return Date(timeIntervalSinceReferenceDate: CodableXMLWriter.julianReading(ofProlepticGregorian: seconds))
            }
            return Date(timeIntervalSinceReferenceDate: seconds)
        }
        try checkNotNull(value, Date.self, parent: parent, step: step)
        throw typeMismatch(Date.self, value, path: CodingPathNode.path(parent, appending: step))
    }

    func unwrapData(_ value: PlistValue, parent: CodingPathNode?, step: CodingPathStep?) throws -> Data {
        if case .data(let data) = value { return data }
        try checkNotNull(value, Data.self, parent: parent, step: step)
        throw typeMismatch(Data.self, value, path: CodingPathNode.path(parent, appending: step))
    }

    /// An integer as `T` when it fits exactly; a real when it is a whole number that fits.
    func unwrapInteger<T: FixedWidthInteger>(_ value: PlistValue, as type: T.Type, parent: CodingPathNode?, step: CodingPathStep?) throws -> T {
        switch value {
        case .integer(let integer) where flavor != .openStep:
            let result: T?
            if let signed = integer.int64Value {
                result = T(exactly: signed)
            } else {
                result = T(exactly: integer.magnitude)
            }
            if let result { return result }
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: CodingPathNode.path(parent, appending: step),
                debugDescription: "Parsed property list number <\(integer)> does not fit in \(T.self)."))
        case .real(let real) where flavor != .openStep:
            if let result = T(exactly: real.value) { return result }
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: CodingPathNode.path(parent, appending: step),
                debugDescription: "\(numberPrefix) <\(real.value)> does not fit in \(T.self)."))
        default:
            try checkNotNull(value, T.self, parent: parent, step: step)
            throw typeMismatch(T.self, value, path: CodingPathNode.path(parent, appending: step))
        }
    }

    /// A real as `T`: exactly in binary (a 64-bit real that `Float` cannot hold is an error), by
    /// rounding in XML, where Foundation parses the text as `T`. Integers convert by rounding.
    func unwrapFloatingPoint<T: BinaryFloatingPoint>(_ value: PlistValue, as type: T.Type, parent: CodingPathNode?, step: CodingPathStep?) throws -> T {
        switch value {
        case .real(let real) where flavor != .openStep:
            let number = real.value
            if number.isNaN { return T.nan }
            if flavor == .xml { return T(number) }
            if let result = T(exactly: number) { return result }
            let spelled = real.width == .single ? "\(Float(number))" : "\(number)"
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: CodingPathNode.path(parent, appending: step),
                debugDescription: "Property list number <\(spelled)> does not fit in \(T.self)."))
        case .integer(let integer) where flavor != .openStep:
            if let signed = integer.int64Value { return T(signed) }
            return T(integer.magnitude)
        default:
            try checkNotNull(value, T.self, parent: parent, step: step)
            throw typeMismatch(T.self, value, path: CodingPathNode.path(parent, appending: step))
        }
    }

    private var numberPrefix: String {
        flavor == .xml ? "Parsed property list number" : "Property list number"
    }

    // MARK: - Errors

    /// `typeMismatch` worded as Foundation words it: "Expected to decode Int but found a string
    /// instead."
    func typeMismatch(_ expected: Any.Type, _ found: PlistValue, path: [any CodingKey]) -> DecodingError {
        DecodingError.typeMismatch(expected, DecodingError.Context(
            codingPath: path, debugDescription: "Expected to decode \(expected) but found \(describe(found, expecting: expected)) instead."))
    }

    private func describe(_ value: PlistValue, expecting expected: Any.Type) -> String {
        if flavor == .openStep {
            switch value {
            case .string: return "a string/data"
            case .data: return expected == String.self ? "Data" : "a string/data"
            default: break
            }
        }
        switch value {
        case .string: return "a string"
        case .integer: return "an integer"
        case .real: return "a real number"
        case .bool: return "a boolean"
        case .date: return "a date"
        case .data: return "a data value"
        case .array: return "an array"
        case .dictionary: return "a dictionary"
        case .uid: return "a uid"
        case .null: return "a null value"
        }
    }
}

/// `[Element]`, which the decoder fills without an unkeyed container (see
/// ``DecodingContext/decodeElements(_:as:path:)``).
protocol DecodedArray {
    /// Decodes a `T`, which is `Self`: the caller found it to be by its type.
    static func decode<T>(_ elements: [PlistValue], as type: T.Type, from context: DecodingContext, path: CodingPathNode?) throws -> T
}

extension Array: DecodedArray where Element: Decodable {
    static func decode<T>(_ elements: [PlistValue], as type: T.Type, from context: DecodingContext, path: CodingPathNode?) throws -> T {
        let decoded: Self = try context.decodeElements(elements, as: Element.self, path: path)
        return unsafeBitCast(decoded, to: T.self)
    }
}

// MARK: - Single value

extension DecodingContext: SingleValueDecodingContainer {
    func decodeNil() -> Bool { value.isCodableNull }
    func decode(_ type: Bool.Type) throws -> Bool { try unwrapBool(value, parent: node, step: nil) }
    func decode(_ type: String.Type) throws -> String { try unwrapString(value, parent: node, step: nil) }
    func decode(_ type: Double.Type) throws -> Double { try unwrapFloatingPoint(value, as: type, parent: node, step: nil) }
    func decode(_ type: Float.Type) throws -> Float { try unwrapFloatingPoint(value, as: type, parent: node, step: nil) }
    func decode(_ type: Int.Type) throws -> Int { try unwrapInteger(value, as: type, parent: node, step: nil) }
    func decode(_ type: Int8.Type) throws -> Int8 { try unwrapInteger(value, as: type, parent: node, step: nil) }
    func decode(_ type: Int16.Type) throws -> Int16 { try unwrapInteger(value, as: type, parent: node, step: nil) }
    func decode(_ type: Int32.Type) throws -> Int32 { try unwrapInteger(value, as: type, parent: node, step: nil) }
    func decode(_ type: Int64.Type) throws -> Int64 { try unwrapInteger(value, as: type, parent: node, step: nil) }
    func decode(_ type: UInt.Type) throws -> UInt { try unwrapInteger(value, as: type, parent: node, step: nil) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try unwrapInteger(value, as: type, parent: node, step: nil) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try unwrapInteger(value, as: type, parent: node, step: nil) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try unwrapInteger(value, as: type, parent: node, step: nil) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try unwrapInteger(value, as: type, parent: node, step: nil) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try unwrap(value, as: type, parent: node, step: nil) }
}

/// The decoder `superDecoder(forKey:)` returns for a key that is absent: every value is `nil`,
/// and asking for anything else is `valueNotFound`, as in Foundation.
struct MissingKeyDecoder: Decoder, SingleValueDecodingContainer {
    let codingPath: [any CodingKey]
    let userInfo: [CodingUserInfoKey: Any]

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        throw DecodingError.valueNotFound([String: Any].self, DecodingError.Context(
            codingPath: codingPath, debugDescription: "Cannot get keyed decoding container -- found null value instead"))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw DecodingError.valueNotFound([Any].self, DecodingError.Context(
            codingPath: codingPath, debugDescription: "Cannot get unkeyed decoding container -- found null value instead"))
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    func decodeNil() -> Bool { true }

    private func missing<T>(_ type: T.Type) -> DecodingError {
        DecodingError.valueNotFound(type, DecodingError.Context(
            codingPath: codingPath, debugDescription: "Cannot get value of \(type) -- found null value instead"))
    }

    func decode(_ type: Bool.Type) throws -> Bool { throw missing(type) }
    func decode(_ type: String.Type) throws -> String { throw missing(type) }
    func decode(_ type: Double.Type) throws -> Double { throw missing(type) }
    func decode(_ type: Float.Type) throws -> Float { throw missing(type) }
    func decode(_ type: Int.Type) throws -> Int { throw missing(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { throw missing(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { throw missing(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { throw missing(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { throw missing(type) }
    func decode(_ type: UInt.Type) throws -> UInt { throw missing(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { throw missing(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { throw missing(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { throw missing(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { throw missing(type) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { throw missing(type) }
}

extension PlistValue {
    /// True for what Foundation's decoders read as `nil`: the string `"$null"` its encoders
    /// write, and the binary format's null object.
    @inline(__always)
    var isCodableNull: Bool {
        switch self {
        case .string(let string): return PlistValue.isNullSpelling(string)
        case .null: return true
        default: return false
        }
    }

    @inline(__always)
    static func isNullSpelling(_ string: String) -> Bool {
        string.utf8.count == 5 && string == EncodedNode.nullString
    }
}
