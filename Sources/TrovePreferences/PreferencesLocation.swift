import Foundation
import TroveCore

/// Where preference domains live on disk: one binary property list per domain, named
/// `<domain>.plist`, in one directory.
///
/// The directory is, in order of precedence: the one given to the initializer, the environment
/// variable `TROVE_PREFERENCES_DIR`, and the platform's place (`$XDG_CONFIG_HOME/trove/preferences`,
/// or `~/.config/trove/preferences`, on Linux; `~/Library/Preferences` on macOS).
public struct PreferencesLocation: Sendable, Hashable {
    /// The directory that holds the domain files.
    public var directory: String

    /// The name of the domain every application shares, as `defaults -g` names it.
    public static let globalDomainName = "NSGlobalDomain"
    /// The file name of the global domain, as on macOS.
    static let globalDomainFileName = ".GlobalPreferences"

    /// The directory given, else `TROVE_PREFERENCES_DIR`, else the platform's default.
    public init(directory: String? = nil, environment: [String: String] = ProcessInfo.processInfo.environment) {
        if let directory {
            self.directory = directory
        } else if let fromEnvironment = environment["TROVE_PREFERENCES_DIR"], !fromEnvironment.isEmpty {
            self.directory = fromEnvironment
        } else {
            self.directory = Self.platformDirectory(environment: environment)
        }
    }

    /// The platform's preferences directory.
    static func platformDirectory(environment: [String: String]) -> String {
        let home = environment["HOME"] ?? NSHomeDirectory()
        #if canImport(Darwin)
        return home + "/Library/Preferences"
        #else
        let config = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.config"
        return config + "/trove/preferences"
        #endif
    }

    /// The file that keeps `domain`. A domain that is a path (it contains `/`, as `defaults`
    /// accepts) is that file, with `.plist` added when it has no extension.
    public func path(forDomain domain: String) -> String {
        if domain.contains("/") {
            return (domain as NSString).pathExtension.isEmpty ? domain + ".plist" : domain
        }
        let fileName = domain == Self.globalDomainName ? Self.globalDomainFileName : domain
        return directory + "/" + fileName + ".plist"
    }

    /// The names of the domains kept in the directory, sorted; the global domain as
    /// `NSGlobalDomain`. Temporary and lock files are not domains.
    public func domainNames() -> [String] {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        return entries.compactMap { entry -> String? in
            guard entry.hasSuffix(".plist") else { return nil }
            let name = String(entry.dropLast(".plist".count))
            if name == Self.globalDomainFileName { return Self.globalDomainName }
            return name.hasPrefix(".") || name.isEmpty ? nil : name
        }.sorted()
    }
}

extension PlistError.Code {
    /// A preferences domain's name is not usable (empty).
    public static let badDomainName = PlistError.Code("bad-domain-name")
}
