import Foundation
import TroveCore

/// The schema version of a domain and the ordered steps that bring older files up to it.
///
/// ```swift
/// let schema = PreferencesSchema(version: 2, migrations: [
///     1: [.rename("fontsize", to: "FontSize")],
///     2: [.convert("FontSize") { .integer(PlistInteger(Int(($0.stringValue ?? "")) ?? 13)) }, .remove("Legacy")],
/// ])
/// try preferences.migrate(to: schema)
/// ```
///
/// Steps run once, in version order, for every version above the one the file records, under the
/// domain's file lock, so when several processes start at once exactly one migrates. The version
/// reached is stored in the domain as ``PreferencesSchema/versionKey``.
public struct PreferencesSchema: Sendable {
    /// The key the domain records its schema version under.
    public static let versionKey = "TrovePreferencesSchemaVersion"

    /// The version this program expects.
    public var version: Int
    /// The steps that bring a domain to each version, by that version.
    public var migrations: [Int: [PreferencesMigrationStep]]

    /// A schema at `version` with the steps to reach each version.
    public init(version: Int, migrations: [Int: [PreferencesMigrationStep]] = [:]) {
        self.version = version
        self.migrations = migrations
    }
}

/// One change a migration makes to a domain.
public enum PreferencesMigrationStep: Sendable {
    /// Moves a value to a new key (replacing any value there); nothing when the old key is absent.
    case rename(String, to: String)
    /// Replaces a value by what the function makes of it (nil removes it); nothing when absent.
    case convert(String, @Sendable (PlistValue) -> PlistValue?)
    /// Removes a key.
    case remove(String)
    /// Any change to the whole domain.
    case custom(@Sendable (inout PlistDictionary) -> Void)

    func apply(to entries: inout PlistDictionary) {
        switch self {
        case let .rename(old, new):
            if let value = entries.removeValue(forKey: old) { entries[new] = value }
        case let .convert(key, transform):
            if let value = entries[key] { entries[key] = transform(value) }
        case .remove(let key):
            entries[key] = nil
        case .custom(let change):
            change(&entries)
        }
    }
}

extension Preferences {
    /// Brings the application domain to `schema`'s version: runs the steps of every version above
    /// the one recorded (0 when none), once, under the file lock, and records the new version.
    /// Returns the version the file had.
    ///
    /// - Throws: ``PlistError`` when the file cannot be locked, read or written; the file is then
    ///   unchanged. A file recording a newer version than `schema` is left alone.
    @discardableResult
    public func migrate(to schema: PreferencesSchema) throws(PlistError) -> Int {
        var found = 0
        try applicationDomain.transform { entries throws(PlistError) -> PlistDictionary? in
            let recorded = PreferenceConversions.integer(entries[PreferencesSchema.versionKey])
            found = recorded
            guard recorded < schema.version else { return nil }
            var migrated = entries
            for version in (recorded + 1)...schema.version {
                for step in schema.migrations[version] ?? [] { step.apply(to: &migrated) }
            }
            migrated[PreferencesSchema.versionKey] = .integer(PlistInteger(schema.version))
            return migrated
        }
        return found
    }
}
