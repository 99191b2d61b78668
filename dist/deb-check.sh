#!/usr/bin/env bash
# dist/deb-check.sh DEB: what .ci/run checks of the Debian package on the
# machine it runs on (as root): apt-get install of the .deb, a typeperf of
# the installed binary, man pages and completions in place, the user perfc,
# systemd-analyze verify of the installed units and their security
# exposure (systemd-analyze security --offline=yes: no running systemd
# needed; at most 3.0 each), then apt-get purge, after which none of the
# package's files (dpkg -L before), directories, nor the user is left.
set -euo pipefail
deb=$(realpath "$1")
export DEBIAN_FRONTEND=noninteractive
apt-get install -y -qq "$deb" >/dev/null
listed=$(mktemp)
dpkg -L perfc >"$listed"
/usr/bin/perfc --version
/usr/bin/perfc typeperf '\Memory\Available Bytes' '\Processor(_Total)\% Processor Time' -sc 2 -si 1
man -w perfc-typeperf perfc-logs >/dev/null
getent passwd perfc >/dev/null || { echo "no user perfc after install"; exit 1; }
[ "$(stat -c %U /var/lib/perfc/service)" = perfc ] || { echo "/var/lib/perfc/service is not perfc's"; exit 1; }
[ "$(stat -c %U /var/log/perfc)" = perfc ] || { echo "/var/log/perfc is not perfc's"; exit 1; }
for f in /usr/share/bash-completion/completions/perfc /usr/share/zsh/vendor-completions/_perfc /usr/share/fish/vendor_completions.d/perfc.fish; do
  [ -s "$f" ] || { echo "missing $f"; exit 1; }
done
bash -n /usr/share/bash-completion/completions/perfc
if command -v zsh >/dev/null; then zsh -n /usr/share/zsh/vendor-completions/_perfc; fi
if command -v fish >/dev/null; then fish -n /usr/share/fish/vendor_completions.d/perfc.fish; fi
# The installed units, with their man pages installed (Documentation=).
systemd-analyze verify /usr/lib/systemd/system/perfc-logman.service /usr/lib/systemd/system/perfc-serve.service
for unit in perfc-logman.service perfc-serve.service; do
  out=$(systemd-analyze security --offline=yes "/usr/lib/systemd/system/$unit" 2>&1) || true
  level=$(printf '%s\n' "$out" | sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p')
  echo "exposure $unit: ${level:-unknown}"
  if [ -z "$level" ] || awk -v l="$level" 'BEGIN { exit !(l > 3.0) }'; then
    printf '%s\n' "$out"; echo "$unit: exposure above 3.0 (or not measured)"; exit 1
  fi
done
apt-get purge -y -qq perfc >/dev/null
left=0
while read -r f; do
  case $f in /. | /usr | /usr/bin | /usr/lib | /usr/lib/systemd | /usr/lib/systemd/system | /usr/lib/systemd/user | /usr/lib/sysusers.d | /usr/share | /usr/share/doc | /usr/share/man | /usr/share/man/man1 | /usr/share/man/man5 | /usr/share/bash-completion | /usr/share/bash-completion/completions | /usr/share/zsh | /usr/share/zsh/vendor-completions | /usr/share/fish | /usr/share/fish/vendor_completions.d) continue ;; esac
  if [ -e "$f" ]; then echo "left behind: $f"; left=1; fi
done <"$listed"
for f in /var/lib/perfc /var/log/perfc /run/perfc; do
  if [ -e "$f" ]; then echo "left behind: $f"; left=1; fi
done
if getent passwd perfc >/dev/null || getent group perfc >/dev/null; then echo "left behind: user or group perfc"; left=1; fi
rm -f "$listed"
[ "$left" = 0 ]
echo "package installed, ran, verified and purged without a trace"
