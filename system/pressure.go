package system

import (
	"errors"
	"io/fs"

	"github.com/perfcounters/perfcounters/counterset"
)

// Pressure counter indexes.
const (
	psSome10 = iota
	psSome10Base
	psSome60
	psSome60Base
	psSome300
	psSome300Base
	psSomeTime
	psFull10
	psFull10Base
	psFull60
	psFull60Base
	psFull300
	psFull300Base
	psFullTime
	psNumCounters
)

// pressureResources are the resources of /proc/pressure, in instance
// order (irq from Linux 6.1, with CONFIG_IRQ_TIME_ACCOUNTING).
var pressureResources = [...]string{"cpu", "memory", "io", "irq"}

func (c *Collector) pressureObject() Object {
	avg := func(line, window string) []counterset.Counter {
		name := "% " + line + " Stall avg" + window
		return []counterset.Counter{
			ctr(name, tFraction, 0, detNovice, name+" is the kernel's running average, over the last "+window+" seconds, of the share of time in which "+map[string]string{"Some": "at least one task", "Full": "all non-idle tasks"}[line]+" stalled waiting for the resource: avg"+window+" of the \""+map[string]string{"Some": "some", "Full": "full"}[line]+"\" line of /proc/pressure/<resource> (or of <resource>.pressure of the root control group where /proc/pressure does not exist), stored in hundredths of a percent."),
			ctr(name, tRawBase, 0, detNovice, "Base for "+name+": 10000 (the value is in hundredths of a percent)."),
		}
	}
	var cs []counterset.Counter
	cs = append(cs, avg("Some", "10")...)
	cs = append(cs, avg("Some", "60")...)
	cs = append(cs, avg("Some", "300")...)
	cs = append(cs, ctr("% Some Stall Time", tTimer, 0, detNovice, "% Some Stall Time is the percentage of elapsed time in which at least one task stalled waiting for the resource, computed over the sample interval from total= of the \"some\" line of the pressure file (microseconds of stall since boot), so that it averages over any interval, not only the kernel's three."))
	cs = append(cs, avg("Full", "10")...)
	cs = append(cs, avg("Full", "60")...)
	cs = append(cs, avg("Full", "300")...)
	cs = append(cs, ctr("% Full Stall Time", tTimer, 0, detNovice, "% Full Stall Time is the percentage of elapsed time in which all non-idle tasks stalled waiting for the resource at once (total= of the \"full\" line). Unavailable where the kernel writes no full line (cpu before Linux 5.13)."))
	set := newSet("Pressure", 0, counterset.Multiple, detNovice, psSomeTime,
		"The Pressure object shows Linux's pressure stall information (PSI): for each resource (instances cpu, memory, io and, from Linux 6.1, irq), how much of the time tasks were stalled waiting for it, from /proc/pressure/<resource>, or where that does not exist from the root control group's <resource>.pressure files. \"Some\" counts time in which at least one task waited, \"full\" time in which all non-idle tasks waited at once (lost work). The kernel's 10, 60 and 300 second averages are shown as they are; the Stall Time counters compute the share over the sample interval from the total stall time. A host with neither source has no instances.",
		cs)
	return Object{Set: set, Collect: (*Collector).collectPressure}
}

func (c *Collector) collectPressure(col Collection, w Writer) error {
	for _, r := range pressureResources {
		b, err := c.readProc("pressure/" + r)
		src := "/proc/pressure/" + r
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				partialf(col, "%s: %v", src, err)
				continue
			}
			// No /proc/pressure: the root control group's file (v2).
			if c.cg.mountsRaw == nil {
				c.cgroupMounts(col)
			}
			root := c.cg.roots[hierV2]
			if root == "" {
				continue
			}
			src = "/sys/" + root + "/" + r + ".pressure"
			if b, err = c.readSys(root + "/" + r + ".pressure"); err != nil {
				if !errors.Is(err, fs.ErrNotExist) {
					partialf(col, "%s: %v", src, err)
				}
				continue
			}
		}
		p, err := parsePressure(b)
		if err != nil {
			partialf(col, "%s %v", src, err)
			continue
		}
		v := w.Instance(r, 0, 0, -1)
		var missing []int
		put := func(first int, l psiLine, ok bool) {
			if !ok {
				for i := first; i < first+7; i++ {
					missing = append(missing, i)
				}
				return
			}
			v.Set(first, l.Avg10)
			v.Set(first+1, 10000)
			v.Set(first+2, l.Avg60)
			v.Set(first+3, 10000)
			v.Set(first+4, l.Avg300)
			v.Set(first+5, 10000)
			v.Set(first+6, l.Total*10)
		}
		put(psSome10, p.Some, p.HasSome)
		put(psFull10, p.Full, p.HasFull)
		if len(missing) > 0 {
			col.Unavailable(missing...)
		}
	}
	return nil
}
