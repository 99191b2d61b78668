package apiserver

import "time"

// SetComputersClock sets the clock the computers' backoff reads (tests).
func SetComputersClock(c *Computers, now func() time.Time) { c.now = now }
