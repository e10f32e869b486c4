import Testing
import TroveCore

@Suite("PlistMerge")
struct PlistMergeTests {
    static let base: PlistValue = ["Width": 800, "Height": 600, "Recent": ["a", "b", "c"], "Window": ["Zoomed": false]]

    @Test("changes to different keys merge, keeping ours's key order")
    func differentKeys() throws {
        var ours = Self.base, theirs = Self.base
        try ours.replace(1024, at: "Width")
        try theirs.replace(true, at: "Window.Zoomed")
        try theirs.insert("dark", at: "Theme")
        try theirs.removeValue(at: "Height")
        let merge = PlistMerge.merge(base: Self.base, ours: ours, theirs: theirs)
        #expect(merge.isClean)
        #expect(merge.value == ["Width": 1024, "Recent": ["a", "b", "c"], "Window": ["Zoomed": true], "Theme": "dark"])
        guard case .dictionary(let entries) = merge.value else { return }
        #expect(Array(entries.keys) == ["Width", "Recent", "Window", "Theme"])
    }

    @Test("the same key changed two ways is a conflict; alike, it is not")
    func sameKey() throws {
        var ours = Self.base, theirs = Self.base
        try ours.replace(1024, at: "Width")
        try theirs.replace(1280, at: "Width")
        try ours.replace(700, at: "Height")
        try theirs.replace(700, at: "Height")
        let merge = PlistMerge.merge(base: Self.base, ours: ours, theirs: theirs)
        #expect(merge.conflicts == [PlistMergeConflict(keyPath: ["Width"], base: 800, ours: 1024, theirs: 1280)])
        #expect(merge.conflicts.first?.description == "Width: base 800, ours 1024, theirs 1280")
    }

    @Test("a removal on one side and an edit on the other conflict")
    func removeAgainstEdit() throws {
        var ours = Self.base, theirs = Self.base
        try ours.removeValue(at: "Window")
        try theirs.replace(true, at: "Window.Zoomed")
        let merge = PlistMerge.merge(base: Self.base, ours: ours, theirs: theirs)
        #expect(merge.conflicts.map(\.keyPath) == ["Window"])
        #expect(merge.conflicts.first?.ours == nil)
    }

    @Test("arrays merge by position when that is unambiguous")
    func arraysByPosition() throws {
        // Different elements edited.
        var merge = PlistMerge.merge(
            base: ["a", "b", "c"], ours: ["A", "b", "c"], theirs: ["a", "b", "C"])
        #expect(merge.isClean && merge.value == ["A", "b", "C"])
        // One side appends, the other edits an element.
        merge = PlistMerge.merge(base: ["a", "b"], ours: ["a", "b", "c"], theirs: ["A", "b"])
        #expect(merge.isClean && merge.value == ["A", "b", "c"])
        // Both append the same element.
        merge = PlistMerge.merge(base: ["a"], ours: ["a", "b"], theirs: ["a", "b"])
        #expect(merge.isClean && merge.value == ["a", "b"])
    }

    @Test("ambiguous array edits are conflicts at their positions")
    func ambiguousArrays() {
        // Both append different elements: which comes first?
        var merge = PlistMerge.merge(base: ["a"], ours: ["a", "b"], theirs: ["a", "c"])
        #expect(merge.conflicts.map(\.keyPath) == [[.index(1)]])
        // One side removes the last element, the other appends after it.
        merge = PlistMerge.merge(base: ["a", "b"], ours: ["a"], theirs: ["a", "b", "c"])
        #expect(merge.conflicts.map(\.keyPath) == [[.index(2)]])
        // An insertion at the front shifts every element: an edit of one of them conflicts.
        merge = PlistMerge.merge(base: ["a", "b"], ours: ["x", "a", "b"], theirs: ["a", "B"])
        #expect(merge.conflicts.map(\.keyPath) == [[.index(1)]])
    }

    @Test("nested containers changed on both sides merge entry by entry")
    func nested() throws {
        let base: PlistValue = ["List": [["name": "a", "size": 1], ["name": "b", "size": 2]]]
        var ours = base, theirs = base
        try ours.replace("A", at: [.key("List"), .index(0), .key("name")])
        try theirs.replace(10, at: [.key("List"), .index(0), .key("size")])
        try theirs.insert(["added": true], at: [.key("New")])
        try ours.insert(["mine": true], at: [.key("New")])
        let merge = PlistMerge.merge(base: base, ours: ours, theirs: theirs)
        #expect(merge.isClean, "\(merge.conflicts)")
        #expect(merge.value == ["List": [["name": "A", "size": 10], ["name": "b", "size": 2]], "New": ["mine": true, "added": true]])
    }

    @Test("apply turns a value into the other side of its differences")
    func applyDifferences() throws {
        let pairs: [(PlistValue, PlistValue)] = [
            (["a": [1, 2, 3], "b": "x"], ["a": [1], "c": ["d": 1]]),
            (["a": [1]], ["a": [0, 5, 6, 7]]),
            ([1, ["k": 2], 3], [1, ["k": 3, "l": 4]]),
            ("scalar", ["now": "a dictionary"]),
        ]
        for (old, new) in pairs {
            var patched = old
            try patched.apply(new.differences(from: old))
            #expect(patched == new)
        }
    }
}
