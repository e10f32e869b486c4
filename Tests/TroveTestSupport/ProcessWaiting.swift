import Foundation

extension Process {
    /// Waits for the process to exit without blocking a thread of the concurrency pool, which a
    /// test suite shares among all its tests: `waitUntilExit()` there can starve the tasks (a
    /// file watch's, a debounce's) that other tests are waiting on.
    public func exited(pollingEvery interval: Duration = .milliseconds(5)) async {
        while isRunning {
            try? await Task.sleep(for: interval)
        }
    }
}
