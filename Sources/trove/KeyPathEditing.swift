import Trove

/// Key-path lookups and edits shared by `type`, `extract`, `insert`, `replace` and `remove`,
/// with plutil's rules: components separated by `.` (`\.` for a dot inside a key), a numeric
/// component indexing an array, and a numeric last component inserting into an array at that
/// index. Error messages use plutil's wording so that scripts matching on them keep working.
enum KeyPathEditing {
    /// How a new value goes in at the key path's last component.
    enum Placement {
        /// plutil's `-insert`: the key must be new; an array index may be `0...count`.
        case insert
        /// plutil's `-replace`: a key is set whether or not it exists. An array index inserts
        /// exactly as for ``insert``: the toolchain's plutil never overwrites an array element.
        case replace
        /// `-append`: the key path names an array, and the value goes at its end.
        case append
    }

    /// The value at `path`, or the error plutil reports when there is none.
    static func value(at path: PlistKeyPath, in root: PlistValue) throws(PlistError) -> PlistValue {
        guard let value = root[keyPath: path] else { throw noValue(at: path) }
        return value
    }

    /// plutil's message for a key path that names no value.
    static func noValue(at path: PlistKeyPath) -> PlistError {
        PlistError(.keyPath, "No value at that key path or invalid key path: \(path)")
    }

    /// Puts `newValue` into `root` at `path`.
    static func place(_ newValue: PlistValue, at path: PlistKeyPath, in root: inout PlistValue, as placement: Placement) throws(PlistError) {
        let components = placement == .append ? path.components + [""] : path.components
        try edit(&root, components: components[...], path: path) { parent, last throws(PlistError) in
            switch placement {
            case .append:
                guard case .array(var array) = parent else {
                    throw PlistError(.keyPath, "Appending to a non-array at key path \(path)")
                }
                parent = .null  // drop the second reference so the array is extended in place
                array.append(newValue)
                parent = .array(array)
            case .insert, .replace:
                try set(newValue, under: &parent, key: last, path: path, replacing: placement == .replace)
            }
        }
    }

    /// Takes the value at `path` out of `root`.
    static func remove(at path: PlistKeyPath, in root: inout PlistValue) throws(PlistError) {
        let missing = PlistError(.keyPath, "No value to remove at key path \(path)")
        do {
            try edit(&root, components: path.components[...], path: path) { parent, last throws(PlistError) in
                switch parent {
                case .dictionary(var dictionary):
                    parent = .null
                    let removed = dictionary.removeValue(forKey: last)
                    parent = .dictionary(dictionary)
                    if removed == nil { throw missing }
                case .array(var array):
                    guard let index = Int(last), array.indices.contains(index) else { throw missing }
                    parent = .null
                    array.remove(at: index)
                    parent = .array(array)
                default:
                    throw missing
                }
            }
        } catch where error.code == .keyPath {
            throw missing
        }
    }

    /// Walks to the container that holds the last component and lets `body` change it. The walk
    /// is as deep as the path, which is never deeper than the document it walks.
    private static func edit(
        _ value: inout PlistValue, components: ArraySlice<String>, path: PlistKeyPath,
        _ body: (inout PlistValue, String) throws(PlistError) -> Void
    ) throws(PlistError) {
        guard let first = components.first else { return }
        let rest = components.dropFirst()
        if rest.isEmpty {
            try body(&value, first)
            return
        }
        switch value {
        case .dictionary(var dictionary):
            guard var child = dictionary[first] else { throw PlistError(.keyPath, "Key path not found \(path)") }
            value = .null  // keep the containers uniquely referenced so edits happen in place
            dictionary[first] = .null
            defer { dictionary[first] = child; value = .dictionary(dictionary) }
            try edit(&child, components: rest, path: path, body)
        case .array(var array):
            guard let index = Int(first) else { throw PlistError(.keyPath, "Unable to index into array with key path \(path)") }
            guard array.indices.contains(index) else {
                throw PlistError(.keyPath, "Index \(index) out of bounds in array at key path \(path)")
            }
            var child = array[index]
            value = .null
            array[index] = .null
            defer { array[index] = child; value = .array(array) }
            try edit(&child, components: rest, path: path, body)
        default:
            throw PlistError(.keyPath, "Unable to insert value at key path \(path)")
        }
    }

    /// Sets one entry of a container, following plutil's insert and replace rules.
    private static func set(
        _ newValue: PlistValue, under parent: inout PlistValue, key: String, path: PlistKeyPath, replacing: Bool
    ) throws(PlistError) {
        switch parent {
        case .dictionary(var dictionary):
            if !replacing, dictionary[key] != nil {
                throw PlistError(.keyPath, "Value already exists at key path \(path)")
            }
            parent = .null
            dictionary[key] = newValue
            parent = .dictionary(dictionary)
        case .array(var array):
            guard let index = Int(key) else { throw PlistError(.keyPath, "Unable to index into array with key path \(path)") }
            guard index >= 0, index <= array.count else {
                throw PlistError(.keyPath, "Index \(index) out of bounds in array at key path \(path)")
            }
            parent = .null
            array.insert(newValue, at: index)
            parent = .array(array)
        default:
            throw PlistError(.keyPath, "Unable to insert value at key path \(path)")
        }
    }
}
