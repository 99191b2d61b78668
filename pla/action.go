package pla

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// DefaultActionTimeout is how long a set's command (-tn, -rc) may run
// before it is killed, when Options.ActionTimeout is zero.
const DefaultActionTimeout = time.Minute

// owner is the user a set's commands run as: the owner of the state
// directory that holds the set.
type owner struct {
	uid, gid uint32
	groups   []uint32
	name     string
	home     string
}

// ownerOf returns the owner of the state directory dir.
func ownerOf(dir string) (owner, error) {
	var st syscall.Stat_t
	if err := syscall.Stat(dir, &st); err != nil {
		return owner{}, fmt.Errorf("the owner of the set's state directory: %w", err)
	}
	o := owner{uid: st.Uid, gid: st.Gid, name: strconv.FormatUint(uint64(st.Uid), 10)}
	if u, err := user.LookupId(o.name); err == nil {
		o.name, o.home = u.Username, u.HomeDir
		if g, err := strconv.ParseUint(u.Gid, 10, 32); err == nil {
			o.gid = uint32(g)
		}
		if ids, err := u.GroupIds(); err == nil {
			for _, s := range ids {
				if g, err := strconv.ParseUint(s, 10, 32); err == nil {
					o.groups = append(o.groups, uint32(g))
				}
			}
		}
	}
	return o, nil
}

// actions runs the commands of one running set: each as the set's
// owner, never as the collector's user when that is another (the
// service running as root), at most one run of each action at a time, a
// run at most every interval when one is set, killed with everything it
// started at the time limit, its output and result written to the set's
// activity.
type actions struct {
	owner    owner
	ownerErr error
	limit    time.Duration
	interval time.Duration
	act      *activity
	wg       *sync.WaitGroup
	ctx      context.Context // ends with the service: running commands are killed then

	mu   sync.Mutex
	busy map[string]bool
	last map[string]time.Time
}

func newActions(ctx context.Context, dir string, limit, interval time.Duration, act *activity, wg *sync.WaitGroup) *actions {
	if limit <= 0 {
		limit = DefaultActionTimeout
	}
	o, err := ownerOf(dir)
	return &actions{owner: o, ownerErr: err, limit: limit, interval: interval, act: act, wg: wg, ctx: context.WithoutCancel(ctx),
		busy: map[string]bool{}, last: map[string]time.Time{}}
}

// claim reports whether the action may run now, and marks it running;
// a run not made is counted as skipped.
func (a *actions) claim(name string, now time.Time) bool {
	a.mu.Lock()
	ok := !a.busy[name] && (a.interval <= 0 || a.last[name].IsZero() || now.Sub(a.last[name]) >= a.interval)
	if ok {
		a.busy[name], a.last[name] = true, now
	}
	a.mu.Unlock()
	if !ok {
		a.act.update(func(x *Activity) { x.action(name).Skipped++ })
	}
	return ok
}

func (a *actions) release(name string) {
	a.mu.Lock()
	delete(a.busy, name)
	a.mu.Unlock()
}

// command starts argv (with env added to the owner's environment) in the
// background as the action name, unless a run of it is still going or
// its rate limit holds it back.
func (a *actions) command(name string, argv, env []string) {
	now := time.Now()
	if len(argv) == 0 || !a.claim(name, now) {
		return
	}
	a.act.update(func(x *Activity) {
		r := x.action(name)
		r.Command, r.Started, r.Ended, r.Running, r.Result, r.Output = argv, now, time.Time{}, true, "", ""
		r.Runs++
	})
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		defer a.release(name)
		result, output, failed := a.exec(argv, env)
		a.act.update(func(x *Activity) {
			r := x.action(name)
			r.Ended, r.Running, r.Result, r.Output, r.Failed = time.Now(), false, result, output, failed
			if failed {
				r.Failures++
			}
		})
	}()
}

// do runs f in the background as the action name (a triggered set's
// start), with the same one-at-a-time and rate rules as a command.
func (a *actions) do(name, what string, f func() error) {
	now := time.Now()
	if !a.claim(name, now) {
		return
	}
	a.act.update(func(x *Activity) {
		r := x.action(name)
		r.Command, r.Started, r.Running = []string{what}, now, true
		r.Runs++
	})
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		defer a.release(name)
		err := f()
		a.act.update(func(x *Activity) {
			r := x.action(name)
			r.Ended, r.Running, r.Failed, r.Result = time.Now(), false, false, "started"
			switch {
			case errors.Is(err, ErrRunning):
				r.Result = "it was running already"
			case err != nil:
				r.Failed = true
				r.Result = err.Error()
				r.Failures++
			}
		})
	}()
}

// exec runs argv as the owner, within the time limit, and returns how it
// ended and the end of its output.
func (a *actions) exec(argv, env []string) (result, output string, failed bool) {
	if a.ownerErr != nil {
		return "could not start: " + a.ownerErr.Error(), "", true
	}
	ctx, cancel := context.WithTimeout(a.ctx, a.limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	attr := &syscall.SysProcAttr{Setpgid: true}
	base := os.Environ()
	switch euid := uint32(os.Geteuid()); {
	case euid == a.owner.uid:
	case euid == 0:
		// The service runs as root; the set is a user's: its commands
		// run as that user, with that user's groups and a clean
		// environment, never with root's.
		attr.Credential = &syscall.Credential{Uid: a.owner.uid, Gid: a.owner.gid, Groups: a.owner.groups}
		base = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "USER=" + a.owner.name, "LOGNAME=" + a.owner.name, "HOME=" + a.owner.home}
	default:
		return fmt.Sprintf("could not start: the set belongs to user %s and this collector runs as uid %d", a.owner.name, euid), "", true
	}
	cmd.SysProcAttr = attr
	cmd.Env = append(base, env...)
	cmd.Dir = "/"
	if a.owner.home != "" {
		if fi, err := os.Stat(a.owner.home); err == nil && fi.IsDir() {
			cmd.Dir = a.owner.home
		}
	}
	out := &tail{max: maxOutput}
	cmd.Stdout, cmd.Stderr = out, out
	// The whole process group goes at the limit: a shell's children too.
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 2 * time.Second
	err := cmd.Run()
	output = out.String()
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		return fmt.Sprintf("killed at its time limit of %v", a.limit), output, true
	case err == nil:
		return "exit status 0", output, false
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.Error(), output, true
	}
	return "could not start: " + err.Error(), output, true
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	b   []byte
	cut bool
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if over := len(t.b) - t.max; over > 0 {
		t.b = append(t.b[:0], t.b[over:]...)
		t.cut = true
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := strings.ToValidUTF8(string(t.b), "\uFFFD")
	if t.cut {
		s = "..." + s
	}
	return s
}
