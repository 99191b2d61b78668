#!/usr/bin/env bash
# dist/deb-check.sh DEB [PREVIOUS_DEB]: what .ci/run checks of the Debian
# package on the machine it runs on (as root): apt-get install of the .deb
# (over PREVIOUS_DEB when given, whose changed conffile must be kept), a
# typeperf of the installed binary, man pages and completions in place, the
# user perfc, the default "system" set made and recorded by the collector
# service (run in the foreground as its unit runs it: systemd is not PID 1
# on CI machines), systemd-analyze verify of the installed units and their
# security exposure (systemd-analyze security --offline=yes: no running
# systemd needed; at most 3.0 each), then apt-get purge, after which none
# of the package's files (dpkg -L before), directories, nor the user is
# left, while root's own set (state in /var/lib/perfc, log in
# /var/log/perfc) is.
set -euo pipefail
deb=$(realpath "$1")
prev=${2:+$(realpath "$2")}
export DEBIAN_FRONTEND=noninteractive
keep=(-o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold)
if [ -n "$prev" ]; then
  apt-get install -y -qq "$prev" >/dev/null
  [ -e /var/lib/perfc/service/.package-default-set ] || { echo "the previous package made no default set"; exit 1; }
  echo '# changed by deb-check' >>/etc/default/perfc
  apt-get install -y -qq "${keep[@]}" "$deb" >/dev/null
  grep -qx '# changed by deb-check' /etc/default/perfc || { echo "the upgrade lost the changed conffile /etc/default/perfc"; exit 1; }
  echo "upgraded over $(basename "$prev"), the changed conffile kept"
else
  apt-get install -y -qq "$deb" >/dev/null
fi
for f in /etc/default/perfc /etc/perfc/web-config.yml; do
  grep -qx "$f" /var/lib/dpkg/info/perfc.conffiles || { echo "$f is not a conffile"; exit 1; }
done
grep -q '^Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/' /usr/share/doc/perfc/copyright || { echo "no machine-readable copyright file"; exit 1; }
zcat /usr/share/doc/perfc/changelog.Debian.gz | head -n 1 | grep -q "^perfc ($(dpkg-query -W -f '${Version}' perfc))" || { echo "changelog.Debian.gz does not name this version"; exit 1; }
# The default set, made by postinst as perfc, recorded by the collector
# service as its unit runs it (user, environment; in the foreground here).
as_service() { runuser -u perfc -- env PERFC_STATE_DIR=/var/lib/perfc/service PERFC_LOG_DIR=/var/log/perfc "$@"; }
as_service /usr/bin/perfc logman query system | grep -q 'Run At Boot: *On' || { echo "no default set system"; exit 1; }
rc=0; as_service timeout -s TERM 6 /usr/bin/perfc logman service || rc=$?
[ "$rc" = 124 ] || { echo "the collector service ended with $rc before it was stopped"; exit 1; }
log=/var/log/perfc/system/system_000001.plog
[ "$(stat -c %U "$log")" = perfc ] || { echo "$log: not written by the service"; exit 1; }
/usr/bin/perfc relog "$log" -q | grep -Eq '^Samples: +[1-9]' || { echo "$log holds no sample"; exit 1; }
echo "the default set recorded $log"
# Root's own set, which purge must leave.
/usr/bin/perfc logman create counter rootown -c '\Memory\Available Bytes' -si 1 >/dev/null
rootstate=$(find /var/lib/perfc -path /var/lib/perfc/service -prune -o -type f -name 'rootown*' -print | head -n 1)
[ -n "$rootstate" ] || { echo "root's set rootown is not in /var/lib/perfc"; exit 1; }
mkdir -p /var/log/perfc/rootown && echo root >/var/log/perfc/rootown/keep
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
uid=$(id -u perfc)
apt-get purge -y -qq perfc >/dev/null
owned=$(find /etc /var /run -xdev -uid "$uid" 2>/dev/null | head -n 5)
[ -z "$owned" ] || { echo "left behind, owned by the former user perfc: $owned"; exit 1; }
[ -e "$rootstate" ] && [ -e /var/log/perfc/rootown/keep ] || { echo "purge removed root's own set or its log"; exit 1; }
[ ! -e /var/lib/perfc/service ] || { echo "purge left /var/lib/perfc/service"; exit 1; }
[ "$(stat -c %U /var/log/perfc)" = root ] || { echo "/var/log/perfc, kept for root's logs, is not root's again"; exit 1; }
# What root's logman made (its set, its state's lock), as an administrator
# who no longer wants it would remove it.
rm -rf "$rootstate" /var/log/perfc/rootown /var/lib/perfc/lock
find /var/lib/perfc /var/log/perfc -depth -type d -empty -delete 2>/dev/null || true
left=0
while read -r f; do
  case $f in /. | /etc | /etc/default | /usr | /usr/bin | /usr/lib | /usr/lib/systemd | /usr/lib/systemd/system | /usr/lib/systemd/user | /usr/lib/sysusers.d | /usr/share | /usr/share/doc | /usr/share/man | /usr/share/man/man1 | /usr/share/man/man5 | /usr/share/bash-completion | /usr/share/bash-completion/completions | /usr/share/zsh | /usr/share/zsh/vendor-completions | /usr/share/fish | /usr/share/fish/vendor_completions.d) continue ;; esac
  if [ -e "$f" ]; then echo "left behind: $f"; left=1; fi
done <"$listed"
for f in /var/lib/perfc /var/log/perfc /run/perfc /etc/perfc /etc/default/perfc; do
  if [ -e "$f" ]; then echo "left behind: $f"; left=1; fi
done
if getent passwd perfc >/dev/null || getent group perfc >/dev/null; then echo "left behind: user or group perfc"; left=1; fi
rm -f "$listed"
[ "$left" = 0 ]
echo "package installed, ran, verified and purged without a trace"
