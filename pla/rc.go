package pla

import (
	"context"

	"github.com/perfcounters/perfcounters/collectorset"
	"github.com/perfcounters/perfcounters/pdh"
)

// closeCommand runs a counter set's command (-rc, the set's Task) each
// time one of its log files is closed: when the log rolls over to a new
// file (-cnf, -max with -cnf), and when the set stops (logman stop, the
// end of its run time or schedule, -sc). The closed file's path is the
// command's last argument and is in its environment as PERFC_LOG_FILE;
// the command runs as the set's owner, within the time limit, as an
// alert's task does (actions).
type closeCommand struct {
	output
	set  *collectorset.Set
	run  *actions
	last string // the file written now
}

func (c *closeCommand) write(ctx context.Context, q *pdh.Query) error {
	err := c.output.write(ctx, q)
	if loc := c.output.location(); loc != c.last {
		c.closed(c.last)
		c.last = loc
	}
	return err
}

func (c *closeCommand) close() error {
	err := c.output.close()
	c.closed(c.last)
	return err
}

// closed runs the command for the file that was closed.
func (c *closeCommand) closed(file string) {
	argv, err := taskArgv(c.set.Task, c.set.TaskArguments, map[string]string{"name": c.set.Name, "logs": file})
	if err != nil {
		c.run.act.update(func(x *Activity) {
			r := x.action("rc")
			r.Result, r.Failed = "could not start: "+err.Error(), true
			r.Failures++
		})
		return
	}
	if file != "" {
		argv = append(argv, file)
	}
	c.run.command("rc", argv, []string{"PERFC_SET=" + c.set.Name, "PERFC_LOG_FILE=" + file})
}
