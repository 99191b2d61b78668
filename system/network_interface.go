package system

import (
	"bytes"
	"fmt"
	"strconv"

	"github.com/perfcounters/perfcounters/counterset"
	"github.com/perfcounters/perfcounters/proctext"
)

// netDev is one interface line of /proc/net/dev.
type netDev struct {
	Name []byte // points into the file buffer
	// Receive: bytes packets errs drop fifo frame compressed multicast;
	// transmit: bytes packets errs drop fifo colls carrier compressed.
	F [16]uint64
	// Bad is set when a number of the line is malformed or missing: F is
	// then zero and no reading.
	Bad bool
}

const (
	ndRxBytes = iota
	ndRxPackets
	ndRxErrs
	ndRxDrop
	ndRxFifo
	ndRxFrame
	ndRxCompressed
	ndRxMulticast
	ndTxBytes
	ndTxPackets
	ndTxErrs
	ndTxDrop
)

// parseNetDev parses /proc/net/dev (two header lines, then
// "name: 16 numbers"; old kernels glue large numbers to the colon). A line
// with a malformed or missing number keeps its interface with Bad set and
// no values, and the problem is recorded in bad; the error is for nothing
// (kept for the callers' shape) and is always nil.
func parseNetDev(b []byte, dst []netDev, bad *badFields) ([]netDev, error) {
	dst = dst[:0]
	bad.reset()
	for lineNo := 1; len(b) > 0; lineNo++ {
		var line []byte
		line, b = proctext.NextLine(b)
		colon := bytes.IndexByte(line, ':')
		if colon < 0 || lineNo <= 2 {
			continue
		}
		var d netDev
		d.Name = proctext.TrimSpace(line[:colon])
		rest := line[colon+1:]
		for i := range d.F {
			var f []byte
			f, rest = proctext.NextField(rest)
			v, ok := proctext.ParseUint(f)
			if !ok {
				bad.add(lineNo, fmt.Appendf(nil, "%s field %d", d.Name, i+1), f)
				d = netDev{Name: d.Name, Bad: true}
				break
			}
			d.F[i] = v
		}
		dst = append(dst, d)
	}
	return dst, nil
}

type netState struct {
	bad   badFields // malformed values of the last /proc/net/dev
	devs  []netDev
	names []string // instance names, reused while the interface list is unchanged
	loop  []bool   // per names entry: a loopback interface, left out
	speed []uint64 // bits per second, per names entry; 0 when unknown
}

// Network Interface counter indexes.
const (
	niBytesTotal = iota
	niPackets
	niPacketsReceived
	niPacketsSent
	niBandwidth
	niBytesReceived
	niPacketsReceivedUnicast
	niPacketsReceivedNonUnicast
	niPacketsReceivedDiscarded
	niPacketsReceivedErrors
	niBytesSent
	niPacketsOutboundDiscarded
	niPacketsOutboundErrors
)

// networkInterfaceObject declares Network Interface in Windows' order.
// Left out: Packets Received Unknown, the sent unicast/non-unicast split
// (/proc/net/dev counts received multicast only) and Output Queue Length.
func (c *Collector) networkInterfaceObject() Object {
	cs := []counterset.Counter{
		ctr("Bytes Total/sec", tBulk, -4, detAdvanced, "Bytes Total/sec is the rate of bytes received and sent on the interface (/proc/net/dev)."),
		ctr("Packets/sec", tBulk, -1, detAdvanced, "Packets/sec is the rate of packets received and sent on the interface."),
		ctr("Packets Received/sec", tBulk, -1, detAdvanced, "Packets Received/sec is the rate of packets received on the interface."),
		ctr("Packets Sent/sec", tBulk, -1, detAdvanced, "Packets Sent/sec is the rate of packets sent on the interface."),
		ctr("Current Bandwidth", tLargeRaw, -6, detAdvanced, "Current Bandwidth is the interface's link speed in bits per second (/sys/class/net/<interface>/speed, in Mbit/s); no value (not 0) where the kernel does not know it, as for virtio and other virtual interfaces, so that a utilisation computed from it is absent rather than a division by zero."),
		ctr("Bytes Received/sec", tBulk, -4, detAdvanced, "Bytes Received/sec is the rate of bytes received on the interface."),
		ctr("Packets Received Unicast/sec", tBulk, -1, detExpert, "Packets Received Unicast/sec is the rate of received packets that were not multicast (packets less multicast in /proc/net/dev; broadcasts are counted here, since Linux does not count them apart)."),
		ctr("Packets Received Non-Unicast/sec", tBulk, -1, detExpert, "Packets Received Non-Unicast/sec is the rate of multicast packets received."),
		grows(ctr("Packets Received Discarded", tLargeRaw, 0, detAdvanced, "Packets Received Discarded is the number of received packets dropped by the interface or the kernel (receive drop).")),
		grows(ctr("Packets Received Errors", tLargeRaw, 0, detAdvanced, "Packets Received Errors is the number of received packets with errors (receive errs).")),
		ctr("Bytes Sent/sec", tBulk, -4, detAdvanced, "Bytes Sent/sec is the rate of bytes sent on the interface."),
		grows(ctr("Packets Outbound Discarded", tLargeRaw, 0, detAdvanced, "Packets Outbound Discarded is the number of outgoing packets dropped (transmit drop).")),
		grows(ctr("Packets Outbound Errors", tLargeRaw, 0, detAdvanced, "Packets Outbound Errors is the number of outgoing packets that could not be sent because of errors (transmit errs).")),
	}
	set := newSet("Network Interface", 510, counterset.Multiple, detAdvanced, niBytesTotal,
		"The Network Interface object measures each network interface of /proc/net/dev, named by its Linux interface name, except loopback interfaces (IFF_LOOPBACK in /sys/class/net/<interface>/flags; \"lo\" where the flags cannot be read), which Windows does not list either: their traffic never leaves the host. As on Windows, there is no _Total.",
		cs)
	return Object{Set: set, Collect: (*Collector).collectNetworkInterface}
}

// iffLoopback is IFF_LOOPBACK of <linux/if.h>, a bit of
// /sys/class/net/<interface>/flags.
const iffLoopback = 0x8

// isLoopback reports whether the interface is a loopback interface: its
// flags (/sys/class/net/<interface>/flags, "0x9") have IFF_LOOPBACK, or,
// where they cannot be read, it is named "lo".
func (c *Collector) isLoopback(name string) bool {
	b, err := c.readSysAt("class/net/", name, "/flags")
	if err != nil {
		return name == "lo"
	}
	f := proctext.TrimSpace(b)
	if len(f) > 2 && f[0] == '0' && (f[1] == 'x' || f[1] == 'X') {
		if v, err := strconv.ParseUint(string(f[2:]), 16, 32); err == nil {
			return v&iffLoopback != 0
		}
	}
	return name == "lo"
}

// readSpeed reads an interface's link speed in bit/s; 0 when unknown.
func (c *Collector) readSpeed(name string) uint64 {
	b, err := c.readSysAt("class/net/", name, "/speed")
	if err != nil {
		return 0 // EINVAL for interfaces without a link speed: not a failure
	}
	if v, ok := proctext.ParseInt(proctext.TrimSpace(b)); ok && v > 0 {
		return uint64(v) * 1_000_000
	}
	return 0
}

func (c *Collector) collectNetworkInterface(col Collection, w Writer) error {
	n := &c.net
	b, err := c.readProc("net/dev")
	if err != nil {
		return err
	}
	if n.devs, err = parseNetDev(b, n.devs, &n.bad); err != nil {
		return err
	}
	n.bad.report(col, "/proc/net/dev")
	same := len(n.names) == len(n.devs)
	for i := 0; same && i < len(n.devs); i++ {
		same = string(proctext.CutName(n.devs[i].Name, proctext.MaxInstanceName)) == n.names[i]
	}
	if !same {
		n.names = n.names[:0]
		for i := range n.devs {
			n.names = append(n.names, string(proctext.CutName(n.devs[i].Name, proctext.MaxInstanceName)))
		}
	}
	// Flags and speeds are read after the names are taken: readFile reuses
	// the buffer the names point into. Whether an interface is a loopback
	// is read again with its speed at every sample, since a name may come
	// back as another interface.
	n.speed = resize(n.speed, len(n.names))
	n.loop = resizeBool(n.loop, len(n.names))
	round := c.sysKept.begin()
	defer c.sysKept.sweep("class/net/", round)
	for i, name := range n.names {
		if n.loop[i] = c.isLoopback(name); !n.loop[i] {
			n.speed[i] = c.readSpeed(name)
		}
	}
	for i := range n.devs {
		if n.loop[i] {
			continue
		}
		f := &n.devs[i].F
		v := w.Instance(n.names[i], 0, 0, -1)
		if n.speed[i] == 0 {
			col.Unavailable(niBandwidth)
		}
		if n.devs[i].Bad {
			col.Unavailable(niBytesTotal, niPackets, niPacketsReceived, niPacketsSent, niBytesReceived,
				niPacketsReceivedUnicast, niPacketsReceivedNonUnicast, niPacketsReceivedDiscarded,
				niPacketsReceivedErrors, niBytesSent, niPacketsOutboundDiscarded, niPacketsOutboundErrors)
		}
		v.Set(niBytesTotal, f[ndRxBytes]+f[ndTxBytes])
		v.Set(niPackets, f[ndRxPackets]+f[ndTxPackets])
		v.Set(niPacketsReceived, f[ndRxPackets])
		v.Set(niPacketsSent, f[ndTxPackets])
		v.Set(niBandwidth, n.speed[i])
		v.Set(niBytesReceived, f[ndRxBytes])
		uni := uint64(0)
		if f[ndRxPackets] > f[ndRxMulticast] {
			uni = f[ndRxPackets] - f[ndRxMulticast]
		}
		v.Set(niPacketsReceivedUnicast, uni)
		v.Set(niPacketsReceivedNonUnicast, f[ndRxMulticast])
		v.Set(niPacketsReceivedDiscarded, f[ndRxDrop])
		v.Set(niPacketsReceivedErrors, f[ndRxErrs])
		v.Set(niBytesSent, f[ndTxBytes])
		v.Set(niPacketsOutboundDiscarded, f[ndTxDrop])
		v.Set(niPacketsOutboundErrors, f[ndTxErrs])
	}
	return nil
}
