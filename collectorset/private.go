package collectorset

// Private is what a set's definition holds that only the set's owner
// (and root) may read: the arguments of the commands it runs (-rc's
// TaskArguments; an alert's -targ and its user text), which may carry
// hosts, tokens or paths, and its SQL data source name, which may carry a
// password. The state directory keeps it in a file of mode 0600 beside
// the definition (state.CreateCollectorSet), so that every user may list
// and query a system set without reading them.
type Private struct {
	TaskArguments      string `json:"taskArguments,omitempty"`
	AlertTaskArguments string `json:"alertTaskArguments,omitempty"`
	AlertTaskUserText  string `json:"alertTaskUserText,omitempty"`
	DataSourceName     string `json:"dataSourceName,omitempty"`
}

// IsZero reports whether p holds nothing.
func (p Private) IsZero() bool { return p == Private{} }

// SplitPrivate returns a copy of s fit for every user to read, and what it
// left out: the command arguments are cleared, and the data source name
// is kept redacted (RedactDSN), so that the set still says where it
// writes and still validates.
func (s *Set) SplitPrivate() (*Set, Private) {
	c := s.Clone()
	p := Private{TaskArguments: c.TaskArguments, DataSourceName: c.Collector.DataSourceName}
	c.TaskArguments = ""
	if c.Collector.DataSourceName != "" {
		if r := RedactDSN(c.Collector.DataSourceName); r != c.Collector.DataSourceName {
			c.Collector.DataSourceName = r
		} else {
			p.DataSourceName = "" // nothing to hide
		}
	}
	if a := c.Alert; a != nil {
		p.AlertTaskArguments, p.AlertTaskUserText = a.TaskArguments, a.TaskUserTextArguments
		a.TaskArguments, a.TaskUserTextArguments = "", ""
	}
	return c, p
}

// JoinPrivate puts back into s what SplitPrivate left out.
func (s *Set) JoinPrivate(p Private) {
	if p.TaskArguments != "" {
		s.TaskArguments = p.TaskArguments
	}
	if p.DataSourceName != "" {
		s.Collector.DataSourceName = p.DataSourceName
	}
	if a := s.Alert; a != nil {
		if p.AlertTaskArguments != "" {
			a.TaskArguments = p.AlertTaskArguments
		}
		if p.AlertTaskUserText != "" {
			a.TaskUserTextArguments = p.AlertTaskUserText
		}
	}
}
