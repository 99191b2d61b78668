// The page's proof of its session (internal/server/session.go): the
// token exchange (?token=) redirects to the page with ?session=PROOF; the
// page keeps the proof in sessionStorage, which belongs to this origin
// (scheme, host and port) alone, takes it out of the address, and sends
// it with every API request. The session cookie goes to every port of
// 127.0.0.1, so another user's listener may get it; without the proof it
// opens no data.

const KEY = 'perfc-session';
const HEADER = 'X-Perfc-Session';

// captureSession moves the proof from the address into sessionStorage.
export function captureSession() {
  const u = new URL(location.href);
  const p = u.searchParams.get('session');
  if (p === null) return;
  sessionStorage.setItem(KEY, p);
  u.searchParams.delete('session');
  history.replaceState(null, '', u.pathname + u.search + u.hash);
}

// sessionHeaders adds the proof, when the page has one, to headers.
export function sessionHeaders(headers = {}) {
  const p = sessionStorage.getItem(KEY);
  return p ? { ...headers, [HEADER]: p } : headers;
}
