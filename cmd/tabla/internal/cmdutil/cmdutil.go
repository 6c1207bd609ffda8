// Package cmdutil holds what every tabla command shares: the I/O streams,
// exit codes and errors that carry them, the structured logger.
package cmdutil

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
)

// ExitCode is the process exit status, decided in one place (cli.Main).
type ExitCode int

const (
	ExitOK    ExitCode = 0
	ExitError ExitCode = 1 // the command ran and failed (bad record, board out of sync…)
	ExitUsage ExitCode = 2 // bad flags or arguments, malformed scripts
)

// IO is the streams a command uses, swapped for buffers in tests.
type IO struct {
	In       io.Reader
	Out, Err io.Writer
}

// System returns the process's own streams.
func System() *IO { return &IO{In: os.Stdin, Out: os.Stdout, Err: os.Stderr} }

// CodeError carries an exit code with an error already reported (or to be
// printed as is).
type CodeError struct {
	Code ExitCode
	Err  error // nil when the command already printed what went wrong
}

func (e *CodeError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}

func (e *CodeError) Unwrap() error { return e.Err }

// Silent is an error that sets the exit code without printing anything more.
func Silent(code ExitCode) error { return &CodeError{Code: code} }

// WithCode attaches an exit code to an error.
func WithCode(code ExitCode, err error) error { return &CodeError{Code: code, Err: err} }

// CodeOf returns the exit code an error asks for (ExitError by default).
func CodeOf(err error) ExitCode {
	if err == nil {
		return ExitOK
	}
	var ce *CodeError
	if errors.As(err, &ce) {
		return ce.Code
	}
	return ExitError
}

// OpenInput opens a file argument, "-" meaning standard input. The name it
// returns is what errors call it.
func OpenInput(streams *IO, arg string) (io.ReadCloser, string, error) {
	if arg == "-" {
		return readCloser{streams.In}, "<stdin>", nil
	}
	f, err := os.Open(arg)
	if err != nil {
		return nil, arg, err
	}
	return f, arg, nil
}

type readCloser struct{ io.Reader }

func (readCloser) Close() error { return nil }

// CheckLogFormat accepts the --log-format values: text and json.
func CheckLogFormat(format string) error {
	if format != "text" && format != "json" {
		return fmt.Errorf("%q: want text or json", format)
	}
	return nil
}

// Logger returns a structured logger writing to w: JSON lines when format
// is "json", else slog's text format (the --log-format flag).
func Logger(w io.Writer, format string) *slog.Logger {
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, nil))
	}
	return slog.New(slog.NewTextHandler(w, nil))
}

// ContextReader reads r until ctx ends, then fails with ctx's cause: a
// command reading a large record stops on Ctrl-C at its next read.
func ContextReader(ctx context.Context, r io.Reader) io.Reader {
	if ctx == nil {
		return r
	}
	return &ctxReader{ctx: ctx, r: r}
}

type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if c.ctx.Err() != nil {
		return 0, context.Cause(c.ctx)
	}
	return c.r.Read(p)
}

// Stopped is the error of a command stopped by ctx's end (a signal), nil
// while ctx goes on.
func Stopped(cmd string, ctx context.Context) error {
	if ctx == nil || ctx.Err() == nil {
		return nil
	}
	return fmt.Errorf("%s: stopped (%v)", cmd, context.Cause(ctx))
}
