package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
)

// The JSON side of the API, asked by a server for its callers (a page's
// Add Counters dialog and its values of a remote computer): the answers
// of /v1/objects and /v1/formatted as the remote server gives them.

// Objects asks the host for GET /v1/objects?detail=DETAIL[&costly=1]:
// its objects and their counters with explain texts.
func (c *Client) Objects(ctx context.Context, detail string, costly bool) (*ObjectList, error) {
	q := url.Values{"detail": {detail}}
	if costly {
		q.Set("costly", "1")
	}
	var l ObjectList
	if err := c.doJSON(ctx, http.MethodGet, PathObjects+"?"+q.Encode(), nil, &l); err != nil {
		return nil, err
	}
	return &l, nil
}

// Object asks the host for GET /v1/objects/{name}?detail=DETAIL: one
// object with its counters and instances.
func (c *Client) Object(ctx context.Context, name, detail string) (*ObjectEntry, error) {
	var e ObjectEntry
	p := PathObjects + "/" + url.PathEscape(name) + "?" + url.Values{"detail": {detail}}.Encode()
	if err := c.doJSON(ctx, http.MethodGet, p, nil, &e); err != nil {
		return nil, err
	}
	return &e, nil
}

// Formatted asks the host for POST /v1/formatted: formatted values of
// counter paths of that host (paths naming no computer), computed by its
// server from its own shared collections.
func (c *Client) Formatted(ctx context.Context, req FormattedRequest) (*FormattedAnswer, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	var a FormattedAnswer
	if err := c.doJSON(ctx, http.MethodPost, PathFormatted, body, &a); err != nil {
		return nil, err
	}
	return &a, nil
}

// doJSON sends a request of the API (a JSON body for POST) with the
// host's credentials, within its timeout, and decodes the JSON answer
// (at most the client's body limit) into v.
func (c *Client) doJSON(ctx context.Context, method, pathQuery string, body []byte, v any) error {
	err := c.doJSONOnce(ctx, method, pathQuery, body, v)
	if refused(err) && c.reloadCredentials() {
		return c.doJSONOnce(ctx, method, pathQuery, body, v)
	}
	return err
}

// setAuth gives req the credentials' Authorization header.
func setAuth(req *http.Request, cred credentials) {
	switch {
	case cred.bearer != "":
		req.Header.Set("Authorization", "Bearer "+cred.bearer)
	case cred.basic:
		req.SetBasicAuth(cred.user, cred.pass)
	}
}

// doJSONOnce is one request of doJSON.
func (c *Client) doJSONOnce(ctx context.Context, method, pathQuery string, body []byte, v any) error {
	u := c.base + pathQuery
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return fmt.Errorf("%s: %s: %w", c.name, u, err)
	}
	req.Header.Set("Accept", MediaJSON)
	req.Header.Set("User-Agent", "perfc")
	if body != nil {
		req.Header.Set("Content-Type", MediaJSON)
	}
	setAuth(req, c.credentials())
	resp, err := c.hc.Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil {
			return &unavailableError{fmt.Errorf("%s: %s: no answer within %v", c.name, u, c.timeout)}
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return &unavailableError{fmt.Errorf("%s: %s: %w", c.name, u, err)}
	}
	defer resp.Body.Close()
	b, _, err := c.readAnswer(resp, u, MediaJSON)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %s: its answer is not the API's JSON: %v", c.name, u, err)
	}
	return nil
}
