package library

// SetReadHook makes the listing call f before it reads each file (tests
// hold a first index half-way with it).
func SetReadHook(l *Library, f func(id string)) { l.testHookRead = f }
