package collect

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/perfcounters/perfcounters/perfdata"
)

// ErrRestartBackoff is wrapped by the error of a Collect that finds the
// provider stopped and its restart backoff not yet passed.
var ErrRestartBackoff = errors.New("not restarted yet (restart backoff)")

// Default restart backoff of an out-of-process provider.
const (
	DefaultMinBackoff = 100 * time.Millisecond
	DefaultMaxBackoff = 30 * time.Second
)

// DefaultCloseTimeout is how long Close waits, when Process.CloseTimeout
// is zero, for the provider to answer CLOSE and exit after the end of its
// input before its process group is killed.
const DefaultCloseTimeout = 2 * time.Second

// pipeGrace bounds how long reaping a provider waits, once it has exited,
// for the copy of its standard error to Process.Stderr to end: a process
// that left the provider's group may hold that pipe open indefinitely.
const pipeGrace = 250 * time.Millisecond

// Process is an out-of-process collect procedure: an executable, in any
// language, that speaks the protocol of PROTOCOL.md over its stdin and
// stdout. It implements Procedure. The executable is started by Open and
// kept running across collections; if it dies, misbehaves or outlives the
// context of a call, it is killed and started again (with HELLO and OPEN)
// by a later Collect, no sooner than the backoff allows. The backoff starts
// at MinBackoff, doubles with each consecutive failure up to MaxBackoff,
// and resets after a successful collection.
//
// Nothing the executable sends is trusted: header lines are bounded by
// MaxLine, and a response longer than the buffer offered is a protocol
// violation, read no further.
//
// The executable runs in a process group of its own (on Unix). Whenever it
// is stopped — a timeout, a protocol violation, Close — the whole group is
// killed, so a process it started cannot outlive it, and the engine's ends
// of its stdin and stdout are closed, so a process that escaped the group
// and still holds them cannot block the engine. The executable is always
// reaped: no zombie is left behind.
//
// Set the exported fields before Open. A Process is safe for concurrent
// use, but calls are served one at a time.
type Process struct {
	Path string
	Args []string
	Dir  string   // working directory; empty = the engine's
	Env  []string // environment; nil = the engine's
	// Indexes, when set, are handed to the executable in its environment
	// (EnvFirstCounter ...): the title indexes lodctr gave a provider
	// registered from an .ini file. The four variables are removed from
	// the environment otherwise.
	Indexes *Indexes
	// Stderr receives the provider's standard error; nil discards it.
	Stderr io.Writer

	MinBackoff, MaxBackoff time.Duration // zero = DefaultMinBackoff, DefaultMaxBackoff

	// CloseTimeout bounds Close: the CLOSE exchange and the exit that
	// follows the end of the executable's input (zero = DefaultCloseTimeout).
	CloseTimeout time.Duration

	now func() time.Time // for tests; nil = time.Now

	mu      sync.Mutex
	child   *child        // the running executable; nil when none
	opened  bool          // the engine called Open and not Close: a restarted child gets OPEN
	backoff time.Duration // the wait after the next failure
	retryAt time.Time     // no start before this
	lastErr error         // why the last child was stopped
	wbuf    []byte
}

// Exec returns the out-of-process procedure that runs path with args.
func Exec(path string, args ...string) *Process {
	return &Process{Path: path, Args: args}
}

func (p *Process) String() string {
	return strings.Join(append([]string{p.Path}, p.Args...), " ")
}

func (p *Process) clock() time.Time {
	if p.now != nil {
		return p.now()
	}
	return time.Now()
}

// Open starts the executable, agrees on the protocol version and sends
// OPEN. It starts it now, whatever the restart backoff.
func (p *Process) Open(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.opened = true
	if p.child != nil {
		return nil
	}
	p.retryAt = time.Time{}
	return p.start(ctx)
}

// Collect sends COLLECT with len(buf) and reads the answer into buf.
func (p *Process) Collect(ctx context.Context, valueName string, buf []byte) (int, uint32, error) {
	if strings.ContainsAny(valueName, "\r\n") {
		return 0, 0, fmt.Errorf("%s: value name %q contains a line break", p, valueName)
	}
	if len(buf) > 0xFFFFFFFF {
		buf = buf[:0xFFFFFFFF]
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.child == nil {
		if err := p.start(ctx); err != nil {
			return 0, 0, err
		}
	}
	req := request{verb: verbCollect, size: uint32(len(buf)), valueName: valueName}
	if len(req.valueName)+len(verbCollect)+12 >= MaxLine {
		return 0, 0, fmt.Errorf("%s: value name of %d bytes does not fit on a request line", p, len(valueName))
	}
	var n int
	var k uint32
	err := p.exchange(ctx, req, collectAnswer(p.child.r, buf, &n, &k))
	if err == nil {
		p.backoff = 0
	}
	return n, k, err
}

// Close sends CLOSE, ends the executable's input and waits for it to exit;
// then it kills whatever is left of its process group. An executable that
// takes longer than CloseTimeout (answer and exit together) is killed with
// its group.
func (p *Process) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.opened = false
	if p.child == nil {
		return nil
	}
	grace := p.CloseTimeout
	if grace <= 0 {
		grace = DefaultCloseTimeout
	}
	ctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	err := p.exchange(ctx, request{verb: verbClose}, func(r response, line []byte) error {
		if r.kind != respOK || r.counts {
			return protoErr(line, "want OK or ERR after CLOSE")
		}
		return nil
	})
	c := p.child
	if c == nil { // the exchange failed and stopped it
		return err
	}
	p.child = nil
	c.in.Close() // the end of its input: a provider exits now
	werr := c.exit(ctx)
	if err == nil && werr != nil {
		err = fmt.Errorf("%s: exit after CLOSE: %w", p, werr)
	}
	return err
}

// start launches the executable and performs HELLO and, if the engine has
// opened the procedure, OPEN. Called with p.mu held.
func (p *Process) start(ctx context.Context) error {
	if now := p.clock(); now.Before(p.retryAt) {
		return fmt.Errorf("%s: %w for another %v after: %v", p, ErrRestartBackoff, p.retryAt.Sub(now).Round(time.Millisecond), p.lastErr)
	}
	cmd := exec.Command(p.Path, p.Args...)
	cmd.Dir, cmd.Env, cmd.Stderr = p.Dir, providerEnv(p.Env, os.Environ, p.Indexes), p.Stderr
	cmd.WaitDelay = pipeGrace
	newGroup(cmd)
	c, err := startChild(cmd)
	if err != nil {
		return p.failStart(err)
	}
	p.child = c
	err = p.exchange(ctx, request{verb: verbHello, version: ProtocolVersion}, func(r response, line []byte) error {
		if r.kind != respHello {
			return protoErr(line, "want HELLO <version> after HELLO")
		}
		if r.version != ProtocolVersion {
			return protoErr(line, "provider speaks protocol version %d, not %d", r.version, ProtocolVersion)
		}
		return nil
	})
	if err != nil || !p.opened {
		return err
	}
	return p.exchange(ctx, request{verb: verbOpen}, func(r response, line []byte) error {
		if r.kind != respOK || r.counts {
			return protoErr(line, "want OK or ERR after OPEN")
		}
		return nil
	})
}

func (p *Process) failStart(err error) error {
	err = fmt.Errorf("%s: start: %w", p, err)
	p.scheduleRetry(err)
	return err
}

// exchange sends req and reads one response line, handing OK, MORE and
// HELLO answers to handle (which reads any payload). ERR becomes an error
// and leaves the child running; everything else that goes wrong (I/O,
// protocol, ctx done) stops the child, whose stream can no longer be
// trusted. When ctx is done the child's group is killed and its pipes are
// closed at once, which ends a read or write in progress even if a process
// outside the group holds the other end. ErrMoreData from handle is an
// answer, not a fault. Called with p.mu held and p.child running.
func (p *Process) exchange(ctx context.Context, req request, handle func(response, []byte) error) error {
	stop := context.AfterFunc(ctx, p.child.kill)
	err := p.roundTrip(req, handle)
	stop()
	if err == nil || errors.Is(err, perfdata.ErrMoreData) {
		return err
	}
	var pe *providerError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %s: %w", p, req.verb, err)
	}
	if ctx.Err() != nil {
		// Whatever the read or write said, the cause is the deadline.
		err = fmt.Errorf("no answer in time (%w); killed with its process group", ctx.Err())
	}
	err = fmt.Errorf("%s: %s: %w", p, req.verb, err)
	p.stop(err)
	return err
}

// collectAnswer returns the handler of the answer to COLLECT with buf:
// it reads the payload from br into buf and sets *n and *k.
func collectAnswer(br *bufio.Reader, buf []byte, n *int, k *uint32) func(response, []byte) error {
	return func(r response, line []byte) error {
		switch {
		case r.kind == respMore:
			return perfdata.ErrMoreData
		case r.kind != respOK || !r.counts:
			return protoErr(line, "want OK <n> <numObjects>, MORE or ERR after COLLECT")
		case uint64(r.n) > uint64(len(buf)):
			return protoErr(line, "response of %d bytes exceeds the %d offered", r.n, len(buf))
		}
		if _, err := io.ReadFull(br, buf[:r.n]); err != nil {
			return fmt.Errorf("reading %d response bytes: %w", r.n, err)
		}
		*n, *k = int(r.n), r.numObjects
		return nil
	}
}

func (p *Process) roundTrip(req request, handle func(response, []byte) error) error {
	p.wbuf = appendRequest(p.wbuf[:0], req)
	if _, err := p.child.in.Write(p.wbuf); err != nil {
		return fmt.Errorf("writing request: %w", err)
	}
	return readResponse(p.child.r, handle)
}

// readResponse reads one response line from br and hands OK, MORE and
// HELLO answers to handle (which reads any payload); ERR becomes a
// *providerError.
func readResponse(br *bufio.Reader, handle func(response, []byte) error) error {
	line, err := readLine(br)
	if err == io.EOF {
		return fmt.Errorf("provider exited: %w", io.ErrUnexpectedEOF)
	}
	if err != nil {
		return err
	}
	r, err := parseResponse(line)
	if err != nil {
		return err
	}
	if r.kind == respErr {
		return &providerError{text: r.text}
	}
	return handle(r, line)
}

// providerError is an ERR answer: the provider reports a failure of its own
// and stays usable.
type providerError struct{ text string }

func (e *providerError) Error() string { return "provider error: " + e.text }

// stop kills the child with its group, waits until it is reaped and
// schedules its restart.
func (p *Process) stop(why error) {
	if c := p.child; c != nil {
		p.child = nil
		c.kill()
		<-c.done
	}
	p.scheduleRetry(why)
}

// child is one run of the executable. Its reaper goroutine waits for it to
// exit, whenever and however that happens (a crash between samples
// included), kills what it left in its process group and reaps it.
type child struct {
	cmd *exec.Cmd
	in  io.WriteCloser // its stdin
	out io.Closer      // the engine's end of its stdout
	r   *bufio.Reader  // reads out

	done chan struct{} // closed once the child is reaped
	err  error         // the exec.Cmd's Wait result, set before done is closed

	mu        sync.Mutex
	groupGone bool // the child is reaped or about to be: its group id may be reused
}

// startChild starts cmd with pipes to its stdin and stdout, and its
// reaper. The pipes are the engine's own, not the exec.Cmd's, so that
// reaping the child never closes the engine's end of its stdout while
// what the child wrote before it died is still being read.
func startChild(cmd *exec.Cmd) (*child, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	cmd.Stdin, cmd.Stdout = inR, outW
	err = cmd.Start()
	inR.Close() // the child's ends: it has its own copies now
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, err
	}
	c := &child{cmd: cmd, in: inW, out: outR, r: bufio.NewReaderSize(outR, MaxLine), done: make(chan struct{})}
	go c.reap()
	return c, nil
}

// reap waits for the child to exit without reaping it, so that its group
// id stays reserved while what is left of the group is killed; then it
// reaps it. Where an exit cannot be awaited without reaping, the group is
// left alone.
func (c *child) reap() {
	defer close(c.done)
	pid := c.cmd.Process.Pid
	err := waitExit(pid)
	c.mu.Lock()
	if err == nil {
		killGroup(pid)
	}
	c.groupGone = true
	c.mu.Unlock()
	c.err = c.cmd.Wait()
}

// kill sends SIGKILL to the child and its process group and closes the
// engine's ends of its pipes, which ends a read or write in progress even
// when a process outside the group holds the other end. Any goroutine may
// call it, any number of times.
func (c *child) kill() {
	c.mu.Lock()
	if !c.groupGone {
		killGroup(c.cmd.Process.Pid)
	}
	c.mu.Unlock()
	c.cmd.Process.Kill() // os.Process knows when it has been reaped
	c.in.Close()
	c.out.Close()
}

// exit waits for the child to exit on its own until ctx is done, then kills
// it, and returns once it is reaped.
func (c *child) exit(ctx context.Context) error {
	select {
	case <-c.done:
		c.in.Close()
		c.out.Close()
	case <-ctx.Done():
		c.kill()
		<-c.done
	}
	return c.err
}
func (p *Process) scheduleRetry(why error) {
	lo, hi := p.MinBackoff, p.MaxBackoff
	if lo <= 0 {
		lo = DefaultMinBackoff
	}
	if hi <= 0 {
		hi = DefaultMaxBackoff
	}
	switch {
	case p.backoff < lo:
		p.backoff = lo
	case p.backoff > hi/2:
		p.backoff = hi
	default:
		p.backoff *= 2
	}
	p.retryAt = p.clock().Add(p.backoff)
	p.lastErr = why
}
