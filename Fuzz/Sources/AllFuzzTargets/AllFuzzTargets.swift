// Nothing here: this module exists so that one `swift build --target AllFuzzTargets` builds every
// fuzz target and their dependencies, and nothing else of the package graph.
