// Package pla runs performance counter Data Collector Sets: the role of
// Windows' Performance Logs and Alerts service behind `logman start` and
// `logman stop`.
//
// A Service runs sets in one process, through one pdh.Sampler in front of
// one live source: each sample interval has one collection per tick,
// which every set of that interval reads (its own query, its own log),
// and intervals whose ticks meet share it. SECURITY.md says who may do
// what with the service and its logs. A set's log is written as its
// definition says (output.go): binary (.plog: linear, appended, circular,
// or a rollover series NAME_000001.plog / NAME_MMddHHmm.plog), CSV or TSV,
// or SQL. A run ends at its run time (-rf), its sample count (-sc), the
// end of its schedule's window, a write error (a full disk), or a stop.
// A set's data manager (-retain, MS-PLA IDataManager) deletes its old log
// files at start and at each new file of its series (retention.go): only
// files that are provably the set's own, never the one being written, each
// deletion written to its warning log.
//
// A set may record other computers (remote.go): its Server (-s) is the
// computer of its counter paths that name none, and `\\NAME\` paths name
// theirs. The program opens another computer's source by name
// (Options.OpenComputer: perfc's remote client, through the hosts file of
// the user the collector runs as); the service opens each computer once
// for all the sets that record it, with a pdh.Sampler in front of it, so
// that the sets of one tick share one request, and reads each such set
// through a pdh.Fleet of its view of this computer's collection and its
// views of the computers. A computer that does not answer costs only its
// counters: no data for them (in a binary log, a gap mark of that
// computer in each sample), a warning in the set's warning log when it
// stops answering and when it answers again, and a new try after 1 s,
// doubling up to 8 s. A counter of a computer that did not answer at the
// start, whose object this computer does not know, is added when that
// computer answers (tried at every sample). A set starts when at least
// one of its counters can be added.
//
// Each run is recorded in the set owner's state directory (Record,
// run/NAME.json): the pid, start time and boot of the process that runs
// it, and, once it ended cleanly, when and why. Proc.Alive tells a live
// collector from a dead one, a pid reused by another program and a
// zombie, so that a crashed or killed collector never shows as running;
// a run that starts after a crash continues the log after a gap mark.
// The collector of a set holds the set's run lock (state.LockRun) while it
// runs, so that two starts at once end with one collector. Its warnings go
// to the set's warning log (WarningLog, run/NAME.log), which logman query
// shows.
//
// An alert set (collectorset.Alerts) runs in the same machinery: its
// "output" (alert.go) judges its thresholds against each sample, per
// threshold and instance, and keeps the state, events and command runs
// in the set's status file (Activity, run/NAME.status). The commands a
// set runs (an alert's task, a counter set's -rc when a log file closes:
// rc.go) go through actions (action.go): as the set's owner, in a
// process group of their own killed at a time limit, one at a time per
// action, their result and output kept. EventLogger (Syslog) receives
// the events of sets with -el.
//
// Runner is logman's Runner: Start runs a set in the background
// (Supervise: a supervisor in a session of its own that restarts a
// crashed collector, RunOne: the collector), Stop signals it and waits
// until the log is closed. Serve is the collector service that the
// systemd units run: sets marked to run at boot, and scheduled sets
// (NextWindow, a pure function of the set and the time) start and stop
// on time, sharing one Service.
package pla
