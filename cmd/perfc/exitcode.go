package main

import (
	"errors"
	"io/fs"
	"net"
	"syscall"

	"github.com/perfcounters/perfcounters/calc"
	"github.com/perfcounters/perfcounters/engine"
	"github.com/perfcounters/perfcounters/internal/tool/logman"
	"github.com/perfcounters/perfcounters/internal/tool/typeperf"
	"github.com/perfcounters/perfcounters/pla"
	"github.com/perfcounters/perfcounters/remote"
	"github.com/perfcounters/perfcounters/shm"
	"github.com/perfcounters/perfcounters/state"
)

// Exit statuses: one per class of failure, the same for every command,
// so that a script can tell "set not found" from "disk full". They are
// listed in every help screen (exitCodesNote) and man page (EXIT STATUS).
const (
	exitOK          = 0 // success (also: help shown)
	exitFailure     = 1 // a failure of no class below
	exitUsage       = 2 // the command line is wrong: unknown command or option, bad value, missing argument
	exitNotFound    = 3 // what was named does not exist: file, counter, object, set, provider, computer
	exitAccess      = 4 // access denied: permissions, an untrusted state or segment directory, refused credentials
	exitExists      = 5 // already exists or already running: a set, a log file, a run
	exitUnavailable = 6 // the source of data does not answer: a remote computer, a database, a provider
	exitIO          = 7 // input/output error: disk full, quota, read-only file system, device error
)

// exitClass is one exit status and what it means.
type exitClass struct {
	code int
	what string
}

// exitClasses are the classes in the order the help screens and man
// pages list them.
func exitClasses() []exitClass {
	return []exitClass{
		{exitOK, "success"},
		{exitFailure, "failure of no other class"},
		{exitUsage, "usage: unknown command or option, bad value, missing argument"},
		{exitNotFound, "not found: file, counter, object, set, provider or computer"},
		{exitAccess, "access denied: permissions, untrusted directory, refused credentials"},
		{exitExists, "already exists or already running: set, log file, run"},
		{exitUnavailable, "source unavailable: remote computer, database or provider not answering"},
		{exitIO, "I/O error: disk full, quota exceeded, read-only file system, device error"},
	}
}

// exitCode classifies err by the typed errors and sentinels the packages
// expose (errors.Is / errors.As, never the message's words). A usage
// error comes first; then the classes whose causes are the most
// specific: I/O, access, existence, absence, unavailable sources.
func exitCode(err error) int {
	var (
		ue  usageError
		le  *logman.Error
		ste *state.TrustError
		she *shm.TrustError
		se  *remote.StatusError
		ne  net.Error
	)
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ue):
		return exitUsage
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT), errors.Is(err, syscall.EIO),
		errors.Is(err, syscall.EROFS), errors.Is(err, syscall.EFBIG),
		errors.Is(err, pla.ErrFull):
		return exitIO
	case errors.Is(err, fs.ErrPermission), errors.As(err, &ste), errors.As(err, &she):
		return exitAccess
	case errors.As(err, &se) && (se.Status == 401 || se.Status == 403):
		return exitAccess
	case errors.Is(err, fs.ErrExist), errors.Is(err, state.ErrCollectorSetExists),
		errors.Is(err, state.ErrCollectorSetRunning), errors.Is(err, pla.ErrFileExists):
		return exitExists
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, state.ErrCollectorSetNotFound),
		errors.Is(err, state.ErrProviderNotFound), errors.Is(err, remote.ErrNoSet), errors.Is(err, remote.ErrUnknownHost),
		errors.Is(err, pla.ErrNotRunning), errors.Is(err, typeperf.ErrNoValidCounters),
		errors.Is(err, calc.NoMachine), errors.Is(err, calc.NoObject),
		errors.Is(err, calc.NoCounter), errors.Is(err, calc.NoInstance):
		return exitNotFound
	case errors.As(err, &se) && se.Status == 404:
		return exitNotFound
	case errors.Is(err, remote.ErrUnavailable), errors.As(err, &ne),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH),
		errors.Is(err, engine.ErrProcTimeout), errors.Is(err, engine.ErrProcBusy), errors.Is(err, engine.ErrProcDisabled):
		return exitUnavailable
	case errors.As(err, &se) && se.Status >= 500:
		return exitUnavailable
	}
	// logman's errors carry Windows' HRESULT: its classes where no
	// wrapped error said more.
	if errors.As(err, &le) {
		switch le.Code {
		case logman.CodeInvalid:
			return exitUsage
		case logman.CodeNotFound, logman.CodeNotRunning:
			return exitNotFound
		case logman.CodeAccessDenied:
			return exitAccess
		case logman.CodeExists, logman.CodeInUse:
			return exitExists
		}
	}
	return exitFailure
}
