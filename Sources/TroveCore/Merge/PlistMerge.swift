/// A three-way merge of property-list values by key path: what git's merge does for lines, done
/// for keys, so that two branches that each change a different key of a plist merge cleanly.
///
/// Each path is decided from its value in the common ancestor (`base`) and on the two sides:
///
/// - the same on both sides (both changed it alike, or neither did): that value;
/// - changed on one side only: that side's change (an edit, an addition or a removal);
/// - changed on both sides, differently: a conflict at that path, unless both are dictionaries,
///   or both are arrays, in which case their entries are merged one by one. Two sides that both
///   add a dictionary under the same new key are merged entry by entry too, from an empty base.
///
/// Dictionaries merge by key; the result keeps `ours`'s key order, with keys that only `theirs`
/// added at the end in `theirs`'s order. Arrays merge by position: element *i* of each side is
/// merged with element *i* of the base, so edits to different elements merge, as do additions
/// at the end made on one side only. Where that reading is ambiguous (both sides append
/// different elements, or one side removes elements the other changes or appends after) the
/// positions involved are conflicts: an insertion that shifts elements shows as a change of
/// every later position, so it merges only when the other side left those positions alone.
///
/// ```swift
/// let base: PlistValue = ["Width": 800, "Height": 600]
/// let ours: PlistValue = ["Width": 1024, "Height": 600]
/// let theirs: PlistValue = ["Width": 800, "Height": 600, "Zoomed": true]
/// let merge = PlistMerge.merge(base: base, ours: ours, theirs: theirs)
/// merge.value      // ["Width": 1024, "Height": 600, "Zoomed": true]
/// merge.conflicts  // []
/// ```
public enum PlistMerge {
    /// Merges the changes `ours` and `theirs` made to `base`.
    ///
    /// The walk is recursive over the containers both sides changed, so its depth is at most the
    /// nesting of the values (bounded by the readers' depth limit for values read from files).
    public static func merge(base: PlistValue, ours: PlistValue, theirs: PlistValue) -> PlistMergeResult {
        var conflicts: [PlistMergeConflict] = []
        var path: [PlistKeyPath.Component] = []
        let value = mergeValues(base, ours, theirs, path: &path, conflicts: &conflicts) ?? ours
        return PlistMergeResult(value: value, conflicts: conflicts)
    }

    /// The merged value at one path (nil: no value there), or `ours` with conflicts recorded.
    private static func mergeValues(
        _ base: PlistValue?, _ ours: PlistValue?, _ theirs: PlistValue?,
        path: inout [PlistKeyPath.Component], conflicts: inout [PlistMergeConflict]
    ) -> PlistValue? {
        if ours == theirs { return ours }
        if base == ours { return theirs }
        if base == theirs { return ours }
        switch (base, ours, theirs) {
        case let (.dictionary(b)?, .dictionary(o)?, .dictionary(t)?):
            return .dictionary(mergeDictionaries(b, o, t, path: &path, conflicts: &conflicts))
        case let (nil, .dictionary(o)?, .dictionary(t)?):
            return .dictionary(mergeDictionaries(PlistDictionary(), o, t, path: &path, conflicts: &conflicts))
        case let (.array(b)?, .array(o)?, .array(t)?):
            return mergeArrays(b, o, t, path: &path, conflicts: &conflicts)
        default:
            conflicts.append(PlistMergeConflict(
                keyPath: PlistKeyPath(components: path), base: base, ours: ours, theirs: theirs))
            return ours
        }
    }

    private static func mergeDictionaries(
        _ base: PlistDictionary, _ ours: PlistDictionary, _ theirs: PlistDictionary,
        path: inout [PlistKeyPath.Component], conflicts: inout [PlistMergeConflict]
    ) -> PlistDictionary {
        // ours's keys in their order, then theirs's new keys, then keys only the base had (which
        // at least one side removed; a side that changed one keeps it, as a conflict).
        var keys = Array(ours.keys)
        for key in theirs.keys where ours[key] == nil { keys.append(key) }
        for key in base.keys where ours[key] == nil && theirs[key] == nil { keys.append(key) }
        var entries: [(String, PlistValue)] = []
        entries.reserveCapacity(keys.count)
        for key in keys {
            path.append(.key(key))
            if let merged = mergeValues(base[key], ours[key], theirs[key], path: &path, conflicts: &conflicts) {
                entries.append((key, merged))
            }
            path.removeLast()
        }
        return PlistDictionary(entries)
    }

    private static func mergeArrays(
        _ base: [PlistValue], _ ours: [PlistValue], _ theirs: [PlistValue],
        path: inout [PlistKeyPath.Component], conflicts: inout [PlistMergeConflict]
    ) -> PlistValue {
        var merged: [PlistValue] = []
        var firstHole: Int?
        for index in 0..<max(base.count, ours.count, theirs.count) {
            func element(_ array: [PlistValue]) -> PlistValue? { index < array.count ? array[index] : nil }
            path.append(.index(index))
            let before = conflicts.count
            let value = mergeValues(element(base), element(ours), element(theirs), path: &path, conflicts: &conflicts)
            if let value {
                if firstHole != nil, conflicts.count == before {
                    // An element after a removed one: which position it should take is ambiguous.
                    conflicts.append(PlistMergeConflict(
                        keyPath: PlistKeyPath(components: path), base: element(base), ours: element(ours),
                        theirs: element(theirs)))
                }
                merged.append(value)
            } else if conflicts.count == before {
                firstHole = firstHole ?? index
            }
            path.removeLast()
        }
        return .array(merged)
    }
}

/// What ``PlistMerge/merge(base:ours:theirs:)`` made of two sides' changes.
public struct PlistMergeResult: Sendable, Hashable {
    /// The merged value. Where there are conflicts, it holds `ours`'s value at those paths, and
    /// should not be used as a result.
    public var value: PlistValue
    /// The paths changed in two different ways, in the order the walk met them (depth first,
    /// `ours`'s key order).
    public var conflicts: [PlistMergeConflict]

    /// A result.
    public init(value: PlistValue, conflicts: [PlistMergeConflict]) {
        self.value = value
        self.conflicts = conflicts
    }

    /// True when the two sides merged without conflicts.
    public var isClean: Bool { conflicts.isEmpty }
}

/// A path that two sides changed in two different ways. A nil side had no value there (the key
/// was missing, or removed).
public struct PlistMergeConflict: Sendable, Hashable, CustomStringConvertible {
    /// Where the sides disagree.
    public var keyPath: PlistKeyPath
    /// The common ancestor's value.
    public var base: PlistValue?
    /// One side's value.
    public var ours: PlistValue?
    /// The other side's value.
    public var theirs: PlistValue?

    /// A conflict at `keyPath`.
    public init(keyPath: PlistKeyPath, base: PlistValue?, ours: PlistValue?, theirs: PlistValue?) {
        self.keyPath = keyPath
        self.base = base
        self.ours = ours
        self.theirs = theirs
    }

    /// `path: base B, ours O, theirs T`, with `(root)` for the root and `(none)` for a side with
    /// no value, values in ``PlistValue``'s compact description.
    public var description: String {
        func side(_ value: PlistValue?) -> String { value.map { "\($0)" } ?? "(none)" }
        let path = keyPath.isEmpty ? "(root)" : keyPath.description
        return "\(path): base \(side(base)), ours \(side(ours)), theirs \(side(theirs))"
    }
}
