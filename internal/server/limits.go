package server

import (
	"container/list"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Limits bound what one request and all of them together may cost. A
// zero field takes its default (DefaultLimits).
type Limits struct {
	MaxHeaderBytes    int           // request line and headers (beyond: 431)
	MaxURLBytes       int           // the request target (beyond: 414)
	MaxBodyBytes      int64         // a request body (beyond: 413)
	MaxConcurrent     int           // requests served at once (beyond: 503)
	MaxClients        int           // rate-limit buckets kept (oldest evicted)
	ReadHeaderTimeout time.Duration // to read a request's headers
	ReadTimeout       time.Duration // to read a whole request
	WriteTimeout      time.Duration // to write an answer
	IdleTimeout       time.Duration // a kept-alive connection between requests
	ShutdownTimeout   time.Duration // for requests in flight at shutdown
}

// DefaultLimits are the limits a zero field takes.
func DefaultLimits() Limits {
	return Limits{
		MaxHeaderBytes:    16 << 10,
		MaxURLBytes:       8 << 10,
		MaxBodyBytes:      1 << 20,
		MaxConcurrent:     512,
		MaxClients:        10000,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      2 * time.Minute,
		IdleTimeout:       2 * time.Minute,
		ShutdownTimeout:   10 * time.Second,
	}
}

// withDefaults returns l with its zero fields set from DefaultLimits.
func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	set := func(v *int, dv int) {
		if *v <= 0 {
			*v = dv
		}
	}
	setD := func(v *time.Duration, dv time.Duration) {
		if *v <= 0 {
			*v = dv
		}
	}
	set(&l.MaxHeaderBytes, d.MaxHeaderBytes)
	set(&l.MaxURLBytes, d.MaxURLBytes)
	set(&l.MaxConcurrent, d.MaxConcurrent)
	set(&l.MaxClients, d.MaxClients)
	if l.MaxBodyBytes <= 0 {
		l.MaxBodyBytes = d.MaxBodyBytes
	}
	setD(&l.ReadHeaderTimeout, d.ReadHeaderTimeout)
	setD(&l.ReadTimeout, d.ReadTimeout)
	setD(&l.WriteTimeout, d.WriteTimeout)
	setD(&l.IdleTimeout, d.IdleTimeout)
	setD(&l.ShutdownTimeout, d.ShutdownTimeout)
	return l
}

// clientLimiter keeps one token bucket per client key (a remote address
// or an identity), at most max of them: the least recently used bucket is
// forgotten first, so memory stays bounded whatever the number of
// clients.
type clientLimiter struct {
	every rate.Limit
	burst int
	max   int

	mu      sync.Mutex
	order   *list.List // of *bucket, most recently used at the back
	buckets map[string]*list.Element
}

type bucket struct {
	key string
	lim *rate.Limiter
}

func newClientLimiter(rl RateLimit, max int) *clientLimiter {
	if rl.Interval <= 0 {
		return nil
	}
	return &clientLimiter{every: rate.Every(rl.Interval), burst: rl.Burst, max: max,
		order: list.New(), buckets: map[string]*list.Element{}}
}

// allow takes a token from key's bucket at now; when there is none it
// returns false and how long until there is one.
func (c *clientLimiter) allow(key string, now time.Time) (bool, time.Duration) {
	if c == nil {
		return true, 0
	}
	c.mu.Lock()
	e, ok := c.buckets[key]
	if ok {
		c.order.MoveToBack(e)
	} else {
		e = c.order.PushBack(&bucket{key: key, lim: rate.NewLimiter(c.every, c.burst)})
		c.buckets[key] = e
		for c.order.Len() > c.max {
			old := c.order.Remove(c.order.Front()).(*bucket)
			delete(c.buckets, old.key)
		}
	}
	lim := e.Value.(*bucket).lim
	c.mu.Unlock()
	r := lim.ReserveN(now, 1)
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return false, d
	}
	return true, 0
}

// size is the number of buckets kept.
func (c *clientLimiter) size() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.buckets)
}
