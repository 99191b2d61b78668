package pla

import (
	"fmt"
	"log/syslog"
	"strings"
	"sync"
)

// SyslogTag is the tag of the alert events written to syslog (and so to
// the journal, as SYSLOG_IDENTIFIER): Windows writes them to the
// Microsoft-Windows-Diagnosis-PLA/Operational log as event 2031.
const SyslogTag = "perfc-pla"

// Syslog returns an EventLogger that writes each alert event as one
// syslog message (facility daemon, severity warning for a firing, notice
// for a clear), tagged SyslogTag. network and addr name the syslog
// socket ("", "": the local one, /dev/log, which the journal reads too;
// "unixgram", "/path" for another). It connects at the first event and
// again after a failed write.
func Syslog(network, addr string) EventLogger {
	var mu sync.Mutex
	var w *syslog.Writer
	return func(set string, e AlertEvent) error {
		mu.Lock()
		defer mu.Unlock()
		if w == nil {
			var err error
			if w, err = syslog.Dial(network, addr, syslog.LOG_DAEMON|syslog.LOG_WARNING, SyslogTag); err != nil {
				w = nil
				return fmt.Errorf("syslog: %w", err)
			}
		}
		msg := EventText(set, e)
		var err error
		if e.Kind == "fired" {
			err = w.Warning(msg)
		} else {
			err = w.Notice(msg)
		}
		if err != nil {
			w.Close()
			w = nil
		}
		return err
	}
}

// EventText is an alert event as one line of a system log: the set, then
// the event in the words of Windows' event 2031.
func EventText(set string, e AlertEvent) string {
	return strings.ReplaceAll(fmt.Sprintf("Data Collector Set %s: %s", set, e.Message), "\n", " ")
}
