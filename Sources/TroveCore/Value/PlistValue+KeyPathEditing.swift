/// Lookups and edits by key path, with `plutil`'s rules: a key component names a dictionary entry
/// (or, when it is a decimal number, an array element), an index component names an array
/// element, and an index one past the end inserts at the end. Errors are ``PlistError/Code/keyPath``
/// errors worded as plutil words them, so scripts that match on its messages keep working.
///
/// ```swift
/// var settings: PlistValue = ["Window": ["Width": 800]]
/// try settings.insert(1024, at: "Window.Height")
/// try settings.replace(900, at: "Window.Width")
/// try settings.insert("~/a.txt", at: "Recent", placement: .append)   // error: no array there
/// let removed = try settings.removeValue(at: "Window.Height")
/// ```
///
/// - Complexity: O(*d* + *n*) for a path of depth *d* whose last container has *n* entries; the
///   containers on the path are edited in place when nothing else shares them.
extension PlistValue {
    /// How a new value goes in at a key path's last component.
    public enum KeyPathPlacement: Sendable, Hashable {
        /// plutil's `-insert`: a dictionary key must be new; an array index may be `0...count`.
        case insert
        /// plutil's `-replace`: a dictionary key is set whether or not it exists. An array index
        /// inserts exactly as for ``insert``, as the toolchain's plutil never overwrites an element.
        case replace
        /// `-append`: the key path names an array, and the value goes at its end.
        case append
    }

    /// The value at `path`, or the ``PlistError/Code/keyPath`` error plutil reports when there is none.
    public func value(at path: PlistKeyPath) throws(PlistError) -> PlistValue {
        guard let value = self[keyPath: path] else { throw PlistError.noValue(at: path) }
        return value
    }

    /// Puts `newValue` in at `path` as `placement` says.
    ///
    /// - Throws: ``PlistError`` with code ``PlistError/Code/keyPath`` when a container on the path
    ///   is missing, the key exists for an insert, or an index is out of range.
    public mutating func insert(
        _ newValue: PlistValue, at path: PlistKeyPath, placement: KeyPathPlacement = .insert
    ) throws(PlistError) {
        let components = placement == .append ? path.components + [.key("")] : path.components
        try Self.edit(&self, components: components[...], path: path) { parent, last throws(PlistError) in
            switch placement {
            case .append:
                guard case .array(var array) = parent else {
                    throw PlistError(.keyPath, keyPath: path, "Appending to a non-array at key path \(path)")
                }
                parent = .null  // drop the second reference so the array is extended in place
                array.append(newValue)
                parent = .array(array)
            case .insert, .replace:
                try Self.set(newValue, under: &parent, component: last, path: path, replacing: placement == .replace)
            }
        }
    }

    /// Sets the value at `path`, adding the entry or overwriting it (plutil's `-replace`).
    public mutating func replace(_ newValue: PlistValue, at path: PlistKeyPath) throws(PlistError) {
        try insert(newValue, at: path, placement: .replace)
    }

    /// Takes the value at `path` out and returns it.
    ///
    /// - Throws: ``PlistError`` with code ``PlistError/Code/keyPath`` when nothing is there.
    @discardableResult
    public mutating func removeValue(at path: PlistKeyPath) throws(PlistError) -> PlistValue {
        let missing = PlistError(.keyPath, keyPath: path, "No value to remove at key path \(path)")
        var removed: PlistValue?
        do {
            try Self.edit(&self, components: path.components[...], path: path) { parent, last throws(PlistError) in
                switch parent {
                case .dictionary(var dictionary):
                    guard case .key(let key) = last else { throw missing }
                    parent = .null
                    removed = dictionary.removeValue(forKey: key)
                    parent = .dictionary(dictionary)
                case .array(var array):
                    guard let index = last.arrayIndex, array.indices.contains(index) else { throw missing }
                    parent = .null
                    removed = array.remove(at: index)
                    parent = .array(array)
                default:
                    throw missing
                }
            }
        } catch where error.code == .keyPath {
            throw missing
        }
        guard let removed else { throw missing }
        return removed
    }

    /// Walks to the container that holds the last component and lets `body` change it. The walk
    /// is as deep as the path, which is never deeper than the document it walks.
    private static func edit(
        _ value: inout PlistValue, components: ArraySlice<PlistKeyPath.Component>, path: PlistKeyPath,
        _ body: (inout PlistValue, PlistKeyPath.Component) throws(PlistError) -> Void
    ) throws(PlistError) {
        guard let first = components.first else { return }
        let rest = components.dropFirst()
        if rest.isEmpty {
            try body(&value, first)
            return
        }
        switch value {
        case .dictionary(var dictionary):
            guard case .key(let key) = first, var child = dictionary[key] else {
                throw PlistError(.keyPath, keyPath: path, "Key path not found \(path)")
            }
            value = .null  // keep the containers uniquely referenced so edits happen in place
            dictionary[key] = .null
            defer { dictionary[key] = child; value = .dictionary(dictionary) }
            try edit(&child, components: rest, path: path, body)
        case .array(var array):
            guard let index = first.arrayIndex else {
                throw PlistError(.keyPath, keyPath: path, "Unable to index into array with key path \(path)")
            }
            guard array.indices.contains(index) else {
                throw PlistError(.keyPath, keyPath: path, "Index \(index) out of bounds in array at key path \(path)")
            }
            var child = array[index]
            value = .null
            array[index] = .null
            defer { array[index] = child; value = .array(array) }
            try edit(&child, components: rest, path: path, body)
        default:
            throw PlistError(.keyPath, keyPath: path, "Unable to insert value at key path \(path)")
        }
    }

    /// Sets one entry of a container, following plutil's insert and replace rules.
    private static func set(
        _ newValue: PlistValue, under parent: inout PlistValue, component: PlistKeyPath.Component,
        path: PlistKeyPath, replacing: Bool
    ) throws(PlistError) {
        switch parent {
        case .dictionary(var dictionary):
            guard case .key(let key) = component else {
                throw PlistError(.keyPath, keyPath: path, "Unable to index into a dictionary at key path \(path)")
            }
            if !replacing, dictionary[key] != nil {
                throw PlistError(.keyPath, keyPath: path, "Value already exists at key path \(path)")
            }
            parent = .null
            dictionary[key] = newValue
            parent = .dictionary(dictionary)
        case .array(var array):
            guard let index = component.arrayIndex else {
                throw PlistError(.keyPath, keyPath: path, "Unable to index into array with key path \(path)")
            }
            guard index >= 0, index <= array.count else {
                throw PlistError(.keyPath, keyPath: path, "Index \(index) out of bounds in array at key path \(path)")
            }
            parent = .null
            array.insert(newValue, at: index)
            parent = .array(array)
        default:
            throw PlistError(.keyPath, keyPath: path, "Unable to insert value at key path \(path)")
        }
    }
}

extension PlistError {
    /// The error for a key path that names no value, worded as plutil words it.
    public static func noValue(at path: PlistKeyPath) -> PlistError {
        PlistError(.keyPath, keyPath: path, "No value at that key path or invalid key path: \(path)")
    }
}
