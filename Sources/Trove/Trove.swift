// The umbrella module: `import Trove` gives the whole public API.
@_exported import TroveCore
@_exported import TroveFileIO
@_exported import TroveArchive
@_exported import TroveStore
@_exported import TrovePreferences
