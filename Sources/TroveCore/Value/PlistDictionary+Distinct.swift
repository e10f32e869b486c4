extension PlistDictionary {
    /// A dictionary of `keys[i]: values[i]` for layers of this package that have already proven
    /// the keys distinct (byte for byte), such as the Codable encoder: no key is compared, so
    /// building costs one pass.
    ///
    /// `package` rather than public until the public unique-keys builder exists; passing
    /// repeated keys breaks lookups (checked only in debug builds).
    package init(distinctKeys keys: [String], values: [PlistValue]) {
        self.init(uncheckedUniqueKeys: keys, values: values)
    }
}
