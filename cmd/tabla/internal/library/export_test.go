package library

// SetReadHook makes the listing call f before it reads each file (tests
// hold a first index half-way with it).
func SetReadHook(l *Library, f func(id string)) { l.testHookRead = f }

// SetProgressHook makes analyses call f after each position searched,
// from the analysis's worker (tests hold an analysis part way with it).
func SetProgressHook(l *Library, f func(id string, done, total int)) { l.testHookProgress = f }

// RequestCancel is CancelAnalysis without waiting for the analysis to stop.
func RequestCancel(l *Library, id string) { l.requestCancel(id) }

// Closing is closed when Close is called (before Close waits for
// anything): a read hook holds the listing until then.
func Closing(l *Library) <-chan struct{} { return l.jobs.done }
