import Foundation
import TroveCore
import TroveStore

/// A Swift type a preference can hold, with its conversion from and to the value model.
///
/// Conversions from what a file holds are `UserDefaults`' (a number stored as a string reads as
/// an `Int`, `YES` as a `Bool`); a value that cannot be converted reads as the key's default.
public protocol PreferenceValue: Sendable {
    /// The value a stored one converts to, or nil when it does not.
    init?(preferenceValue: PlistValue)
    /// The value to store.
    var preferenceValue: PlistValue { get }
}

extension Int: PreferenceValue {
    public init?(preferenceValue value: PlistValue) {
        switch value {
        case .integer, .real, .bool, .string: self = PreferenceConversions.integer(value)
        default: return nil
        }
    }
    public var preferenceValue: PlistValue { .integer(PlistInteger(self)) }
}

extension Double: PreferenceValue {
    public init?(preferenceValue value: PlistValue) {
        switch value {
        case .integer, .real, .bool, .string: self = PreferenceConversions.double(value)
        default: return nil
        }
    }
    public var preferenceValue: PlistValue { .real(PlistReal(self)) }
}

extension Bool: PreferenceValue {
    public init?(preferenceValue value: PlistValue) {
        switch value {
        case .integer, .real, .bool, .string: self = PreferenceConversions.bool(value)
        default: return nil
        }
    }
    public var preferenceValue: PlistValue { .bool(self) }
}

extension String: PreferenceValue {
    public init?(preferenceValue value: PlistValue) {
        guard let text = PreferenceConversions.string(value) else { return nil }
        self = text
    }
    public var preferenceValue: PlistValue { .string(self) }
}

extension Date: PreferenceValue {
    public init?(preferenceValue value: PlistValue) {
        guard case .date(let date) = value else { return nil }
        self = date.date
    }
    public var preferenceValue: PlistValue { .date(PlistDate(self)) }
}

extension Data: PreferenceValue {
    public init?(preferenceValue value: PlistValue) {
        guard case .data(let bytes) = value else { return nil }
        self = bytes
    }
    public var preferenceValue: PlistValue { .data(self) }
}

extension URL: PreferenceValue {
    public init?(preferenceValue value: PlistValue) {
        guard let url = PreferenceConversions.url(value) else { return nil }
        self = url
    }
    public var preferenceValue: PlistValue { PreferenceConversions.storedValue(for: self) }
}

extension PlistValue: PreferenceValue {
    public init?(preferenceValue value: PlistValue) { self = value }
    public var preferenceValue: PlistValue { self }
}

extension Array: PreferenceValue where Element: PreferenceValue {
    public init?(preferenceValue value: PlistValue) {
        guard case .array(let elements) = value else { return nil }
        var converted: [Element] = []
        converted.reserveCapacity(elements.count)
        for element in elements {
            guard let item = Element(preferenceValue: element) else { return nil }
            converted.append(item)
        }
        self = converted
    }
    public var preferenceValue: PlistValue { .array(map(\.preferenceValue)) }
}

extension Dictionary: PreferenceValue where Key == String, Value: PreferenceValue {
    public init?(preferenceValue value: PlistValue) {
        guard case .dictionary(let entries) = value else { return nil }
        var converted: [String: Value] = [:]
        for (key, element) in entries {
            guard let item = Value(preferenceValue: element) else { return nil }
            converted[key] = item
        }
        self = converted
    }
    public var preferenceValue: PlistValue {
        .dictionary(PlistDictionary(sorted(by: { $0.key < $1.key }).map { ($0.key, $0.value.preferenceValue) }))
    }
}

extension Preferences {
    /// A preference declared once, with its name, value type and default, and then read and
    /// written without casts:
    ///
    /// ```swift
    /// extension Preferences.Key where Value == Int {
    ///     static let fontSize = Preferences.Key("FontSize", default: 13)
    /// }
    /// preferences[.fontSize] += 1
    /// for await size in preferences.changes(of: .fontSize) { ... }
    /// ```
    public struct Key<Value: Sendable>: Sendable {
        /// The key in the domain.
        public let name: String
        /// What reads give when no domain has the key, or its value does not convert.
        public let defaultValue: Value
        let decode: @Sendable (PlistValue) -> Value?
        let encode: @Sendable (Value) throws(PlistError) -> PlistValue

        /// A key whose values convert as ``PreferenceValue`` says.
        public init(_ name: String, default defaultValue: Value) where Value: PreferenceValue {
            self.name = name
            self.defaultValue = defaultValue
            decode = { Value(preferenceValue: $0) }
            encode = { $0.preferenceValue }
        }

        /// A key with conversions of its own (``codable(_:default:)`` makes one for a `Codable` value).
        public init(
            _ name: String, default defaultValue: Value, decode: @escaping @Sendable (PlistValue) -> Value?,
            encode: @escaping @Sendable (Value) throws(PlistError) -> PlistValue
        ) {
            self.name = name
            self.defaultValue = defaultValue
            self.decode = decode
            self.encode = encode
        }
    }
}

extension Preferences.Key where Value: Codable {
    /// Reads and writes `Codable` values, encoded as ``PlistEncoder`` encodes them (a struct is a
    /// dictionary in the domain).
    ///
    /// ```swift
    /// struct Frame: Codable, Sendable { var x = 0.0, y = 0.0, width = 800.0, height = 600.0 }
    /// let window = Preferences.Key<Frame>.codable("WindowFrame", default: Frame())
    /// ```
    public static func codable(_ name: String, default defaultValue: Value) -> Self {
        Self(name, default: defaultValue,
            decode: { try? PlistDecoder().decode(Value.self, from: $0) },
            encode: { value throws(PlistError) in
                do {
                    return try PlistEncoder().encodeValue(value)
                } catch {
                    var failure = PlistError(.unsupportedValue, "\(name): the value cannot be encoded: \(error)")
                    failure.underlyingError = error
                    throw failure
                }
            })
    }
}

extension Preferences {
    /// The key's value through the search list, or its default; setting writes the application
    /// domain. A value that cannot be encoded is reported through ``onError(_:)`` and not written.
    public subscript<Value>(key: Key<Value>) -> Value {
        get { value(forKey: key.name).flatMap(key.decode) ?? key.defaultValue }
        set {
            do {
                set(try key.encode(newValue), forKey: key.name)
            } catch {
                applicationDomain.report(error)
            }
        }
    }

    /// Removes the key from the application domain, so reads give a lower domain's value or the
    /// default.
    public func reset<Value>(_ key: Key<Value>) { removeObject(forKey: key.name) }

    /// Calls `handler` with the key's value each time it changes (see ``observe(_:_:)-(String,_)``).
    public func observe<Value>(_ key: Key<Value>, _ handler: @escaping @Sendable (Value) -> Void) -> PreferencesObservation {
        observe(key.name) { value in handler(value.flatMap(key.decode) ?? key.defaultValue) }
    }

    /// The key's values, one per change.
    public func changes<Value>(of key: Key<Value>) -> AsyncStream<Value> {
        AsyncStream { continuation in
            let observation = observe(key) { continuation.yield($0) }
            continuation.onTermination = { _ in observation.cancel() }
        }
    }
}
