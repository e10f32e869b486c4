import ArgumentParser
import Trove

@main
struct TroveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "trove", abstract: "placeholder")
}
