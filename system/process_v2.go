package system

import "github.com/perfcounters/perfcounters/counterset"

// processV2Set declares the Process V2 object. Windows publishes it as a V2
// provider (no fixed title index: the title database assigns one) whose
// instances are unique, "name:pid". The counters are Process's.
func processV2Set() *counterset.Set {
	return &counterset.Set{
		Name:           "Process V2",
		Help:           "The Process V2 performance object has the counters of the Process object with unique instance names, name:pid (Idle:0 for the idle time of the processors, _Total:0 for the sum), so that a process keeps its instance while it lives even when others share its executable name.",
		Instancing:     counterset.Multiple,
		DefaultCounter: procProcessorTime,
		Counters:       processCounters(),
	}
}

// ProcessV2 returns the Process V2 object.
func (p *ProcessObjects) ProcessV2() Object {
	return Object{Set: processV2Set(), Collect: func(c *Collector, col Collection, w Writer) error {
		return p.collectProcess(c, col, w, userProcessV2)
	}}
}
