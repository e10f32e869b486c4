import Foundation
import TroveCore

// Non-generic spellings of the most common fields. They do what the generic `encode(_:forKey:)`
// and `decode(_:forKey:)` do; being concrete, a call from another module needs no generic
// dispatch, which is most of the cost of a small object's `init(from:)` and `encode(to:)`.

extension ArchiveEncoder {
    /// Encodes a string: a reference to it, stored once in `$objects`.
    public func encode(_ value: String, forKey key: String) throws {
        setField(.uid(UInt64(encodeScalar(.string(value)))), forKey: Self.escape(key))
    }

    /// Encodes an integer in place, as `encodeInteger(_:forKey:)` does.
    public func encode(_ value: Int, forKey key: String) throws {
        setField(.integer(PlistInteger(value)), forKey: Self.escape(key))
    }

    /// Encodes a real in place, as `encodeDouble(_:forKey:)` does.
    public func encode(_ value: Double, forKey key: String) throws {
        setField(.real(PlistReal(value)), forKey: Self.escape(key))
    }

    /// Encodes a boolean in place, as `encodeBool(_:forKey:)` does.
    public func encode(_ value: Bool, forKey key: String) throws {
        setField(.bool(value), forKey: Self.escape(key))
    }
}

extension ArchiveDecoder {
    /// The stored field for `key`, or the missing-key error for a value of `type`.
    private func requiredField(forKey key: String, _ type: Any.Type) throws(PlistError) -> PlistValue {
        guard let field = try field(forKey: key) else { throw missingKey(key, type, detail: "is not in the archive") }
        if case .uid(0) = field { throw missingKey(key, type, detail: "holds $null") }
        return field
    }

    /// Decodes a string, stored in place or as an `NSString` object.
    public func decode(_ type: String.Type, forKey key: String) throws -> String {
        let field = try requiredField(forKey: key, String.self)
        // A string that is an entry of its own, as archivers store them, is read straight from
        // it; anything else (and any error) takes the general path.
        if case .uid(let reference) = field, let text = storedString(reference) { return text }
        path.append(.key(key))
        defer { path.removeLast() }
        return try String.decodeArchiveField(field, with: self)
    }

    /// Decodes an integer, range-checked.
    public func decode(_ type: Int.Type, forKey key: String) throws -> Int {
        let field = try requiredField(forKey: key, Int.self)
        // An integer stored in place, as `encodeInteger(_:forKey:)` stores it, needs no key path.
        if case .integer(let stored) = field, let value = stored.isNegative ? stored.int64Value.flatMap({ Int(exactly: $0) }) : Int(exactly: stored.magnitude) {
            return value
        }
        path.append(.key(key))
        defer { path.removeLast() }
        return try Int.decodeArchiveField(field, with: self)
    }

    /// Decodes a real (an integer is converted).
    public func decode(_ type: Double.Type, forKey key: String) throws -> Double {
        let field = try requiredField(forKey: key, Double.self)
        if case .real(let stored) = field { return stored.value }
        path.append(.key(key))
        defer { path.removeLast() }
        return try Double.decodeArchiveField(field, with: self)
    }

    /// Decodes a boolean (a number is true when it is not zero).
    public func decode(_ type: Bool.Type, forKey key: String) throws -> Bool {
        let field = try requiredField(forKey: key, Bool.self)
        if case .bool(let stored) = field { return stored }
        path.append(.key(key))
        defer { path.removeLast() }
        return try Bool.decodeArchiveField(field, with: self)
    }
}
