package server

import (
	"container/list"
	"net"
	"net/netip"
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
	MaxPerIdentity    int           // requests of one identity at once (beyond: 503)
	MaxAuthenticating int           // password (bcrypt) checks at once (beyond: 503)
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
		MaxPerIdentity:    0, // MaxConcurrent/8, at least 4
		MaxAuthenticating: 8,
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
	// One identity may hold an eighth of the slots, at least 4 (but no
	// more than all of them): a caller with slow requests cannot take
	// every slot from the others.
	set(&l.MaxPerIdentity, min(max(l.MaxConcurrent/8, 4), l.MaxConcurrent))
	l.MaxPerIdentity = min(l.MaxPerIdentity, l.MaxConcurrent)
	set(&l.MaxAuthenticating, d.MaxAuthenticating)
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
	lim := c.bucketOf(key)
	r := lim.ReserveN(now, 1)
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return false, d
	}
	return true, 0
}

// spent reports whether key's bucket holds less than a token at now (and
// how long until it holds one), taking nothing: a key never charged has
// a full bucket, and none is made for it.
func (c *clientLimiter) spent(key string, now time.Time) (bool, time.Duration) {
	if c == nil {
		return false, 0
	}
	c.mu.Lock()
	e, ok := c.buckets[key]
	c.mu.Unlock()
	if !ok {
		return false, 0
	}
	lim := e.Value.(*bucket).lim
	t := lim.TokensAt(now)
	if t >= 1 {
		return false, 0
	}
	return true, time.Duration((1 - t) / float64(lim.Limit()) * float64(time.Second))
}

// charge takes a token from key's bucket at now, into debt when there is
// none: attempts that raced past spent are paid for by later ones.
func (c *clientLimiter) charge(key string, now time.Time) {
	if c == nil {
		return
	}
	c.bucketOf(key).ReserveN(now, 1)
}

// bucketOf returns key's bucket, made when missing.
func (c *clientLimiter) bucketOf(key string) *rate.Limiter {
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
	return lim
}

// size is the number of buckets kept.
func (c *clientLimiter) size() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.buckets)
}

// clientPrefix is the rate-limit key of the network a request comes
// from, which failed and unauthenticated attempts are counted against:
// every loopback address (127.0.0.0/8, ::1) is one key, since any local
// user may send from any of them; an IPv4 address is its own (/32: a
// NAT's many users share one anyway); an IPv6 address counts as its /64,
// the least a host is given, whose 2^64 addresses it may all send from.
func clientPrefix(remoteAddr string) string {
	host, _, err := net.SplitHostPort(remoteAddr)
	if err != nil {
		host = remoteAddr
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return "addr:" + host
	}
	ip = ip.WithZone("").Unmap()
	switch {
	case ip.IsLoopback():
		return "loopback"
	case ip.Is4():
		return ip.String() + "/32"
	}
	p, _ := ip.Prefix(64)
	return p.String()
}

// slots bound the requests served at once: all of them (total) and
// those of one identity, so that one caller holding requests open (slow
// bodies, slow reading) cannot take every slot from the others. An
// identity always may hold per slots (its share) while any is free;
// beyond its share it may borrow only while more than half of all slots
// stay free: a lone busy caller may use half the server, and the other
// half is left to the others, at least per to each while it lasts.
type slots struct {
	total, per int

	mu    sync.Mutex
	inUse int
	held  map[string]int // by identity; none kept at zero
}

func newSlots(total, per int) *slots {
	return &slots{total: total, per: per, held: map[string]int{}}
}

// acquire takes a slot for who; ok false: who holds its share already
// (own true) or the server is full.
func (s *slots) acquire(who string) (release func(), ok, own bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.inUse >= s.total:
		return nil, false, false
	case s.held[who] >= s.per && s.total-s.inUse-1 < s.total/2:
		return nil, false, true
	}
	s.held[who]++
	s.inUse++
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.inUse--
		if s.held[who]--; s.held[who] <= 0 {
			delete(s.held, who)
		}
	}, true, false
}
