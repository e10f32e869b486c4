import ArgumentParser
import Foundation
import Trove

/// `trove defaults`: the macOS `defaults` tool's verbs and syntax over Trove's preference domains.
struct DefaultsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "defaults",
        abstract: "Read and write preference domains, as macOS defaults does.",
        discussion: """
            Domains are binary property lists named DOMAIN.plist in the preferences directory \
            ($TROVE_PREFERENCES_DIR, else $XDG_CONFIG_HOME/trove/preferences or \
            ~/.config/trove/preferences on Linux, ~/Library/Preferences on macOS). -g and \
            NSGlobalDomain name the global domain; a DOMAIN containing '/' is that file. Writes \
            are merged into the latest file under a lock and replace it atomically, so \
            several processes can write one domain at once.

              read [DOMAIN [KEY]]          print a domain (all domains without one) or one value
              read-type DOMAIN KEY         print the type of a value
              write DOMAIN KEY VALUE       VALUE as property-list text, or a string
              write DOMAIN KEY -TYPE VALUE -string, -int/-integer, -float, -bool/-boolean,
                                           -date, -data (hex)
              write DOMAIN KEY -array V... / -array-add V... / -dict K V... / -dict-add K V...
                                           (each V may be preceded by a -TYPE)
              write DOMAIN 'PLIST'         replace the whole domain with a dictionary
              delete DOMAIN [KEY]          remove a key, or the whole domain
              rename DOMAIN OLD NEW        move a value to a new key
              domains                      list the domains
              find WORD                    search keys and values of every domain
              export DOMAIN FILE|-         write a domain as an XML property list
              import DOMAIN FILE|-         replace a domain with a property list's dictionary

            Unlike macOS defaults, a value that does not parse as its type (-int abc, -bool maybe, \
            an unbalanced property list) is a usage error (exit 64) that changes nothing, and \
            64-bit integers are kept exactly.
            """
    )

    @Argument(parsing: .captureForPassthrough, help: ArgumentHelp("A verb and its arguments.", valueName: "verb"))
    var arguments: [String] = []

    func run() throws {
        var words = arguments
        let session = DefaultsSession()
        do {
            guard !words.isEmpty else {
                throw DefaultsUsage("name a verb: read, read-type, write, delete, rename, domains, find, export or import")
            }
            let verb = words.removeFirst()
            switch verb {
            case "read": try session.read(words)
            case "read-type": try session.readType(words)
            case "write": try session.write(words)
            case "delete": try session.delete(words)
            case "rename": try session.rename(words)
            case "domains": try session.domains(words)
            case "find": try session.find(words)
            case "export": try session.export(words)
            case "import": try session.import(words)
            default: throw DefaultsUsage("unknown verb '\(verb)'")
            }
        } catch let usage as DefaultsUsage {
            Console.reportLine("trove defaults: \(usage.message)")
            Console.reportLine("Usage: trove defaults <verb> [arguments]; see 'trove help defaults'.")
            throw ExitCode(64)
        } catch let failure as DefaultsFailure {
            Console.reportLine(failure.message)
            throw ExitCode.failure
        } catch let error as PlistError {
            Console.reportLine(error.path.map { "\($0): \(error)" } ?? error.description)
            throw ExitCode.failure
        }
    }
}

/// A mistake in the command line: exit 64 and nothing changed.
struct DefaultsUsage: Error {
    var message: String
    init(_ message: String) { self.message = message }
}

/// What `defaults` reports with exit status 1 (a missing domain or key).
struct DefaultsFailure: Error {
    var message: String
    init(_ message: String) { self.message = message }
}
