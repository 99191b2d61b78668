#!/bin/bash
# Captures real control-group files of this host into $1 (a fixture tree).
set -e
out=$1
G=perfc-capture/worker
for c in cpu cpuacct memory blkio pids unified; do mkdir -p /sys/fs/cgroup/$c/$G; done
echo 50000 > /sys/fs/cgroup/cpu/$G/cpu.cfs_quota_us
echo 268435456 > /sys/fs/cgroup/memory/$G/memory.limit_in_bytes
echo "254:0 1073741824" > /sys/fs/cgroup/blkio/$G/blkio.throttle.read_bps_device
# the load, in the groups
bash -c '
for c in cpu cpuacct memory blkio pids unified; do echo $$ > /sys/fs/cgroup/$c/'$G'/cgroup.procs; done
end=$((SECONDS+2)); while [ $SECONDS -lt $end ]; do :; done
dd if=/dev/vda of=/dev/null bs=64k count=200 iflag=direct 2>/dev/null
head -c 30000000 /dev/zero > /dev/shm/perfc-capture.bin
exec sleep 30
' &
child=$!
while [ ! -s /dev/shm/perfc-capture.bin ] || [ $(stat -c %s /dev/shm/perfc-capture.bin) -lt 30000000 ]; do sleep 0.1; done
sleep 0.3
copy() { # hierarchy-relative dir, files...
  local d=$1; shift
  mkdir -p "$out/sys/fs/cgroup/$d"
  for f in "$@"; do
    [ -e "/sys/fs/cgroup/$d/$f" ] && cat "/sys/fs/cgroup/$d/$f" > "$out/sys/fs/cgroup/$d/$f" || true
  done
}
for d in cpu cpu/perfc-capture cpu/$G; do copy $d cpu.stat cpu.cfs_quota_us cpu.cfs_period_us cgroup.procs tasks; done
for d in cpuacct cpuacct/perfc-capture cpuacct/$G; do copy $d cpuacct.usage cpuacct.stat cgroup.procs tasks; done
for d in memory memory/perfc-capture memory/$G; do copy $d memory.usage_in_bytes memory.limit_in_bytes memory.memsw.usage_in_bytes memory.stat memory.oom_control cgroup.procs tasks; done
for d in blkio blkio/perfc-capture blkio/$G; do copy $d blkio.throttle.io_service_bytes_recursive blkio.throttle.io_serviced_recursive cgroup.procs tasks; done
for d in pids pids/perfc-capture pids/$G; do copy $d pids.current cgroup.procs tasks; done
for d in unified unified/perfc-capture unified/$G; do copy $d cgroup.controllers cpu.stat cpu.max memory.current memory.stat io.stat cgroup.procs cgroup.threads cpu.pressure memory.pressure io.pressure; done
kill $child; wait $child 2>/dev/null || true
rm -f /dev/shm/perfc-capture.bin
for c in cpu cpuacct memory blkio pids unified; do rmdir /sys/fs/cgroup/$c/$G /sys/fs/cgroup/$c/perfc-capture; done
mkdir -p $out/proc/self $out/proc/pressure $out/sys/devices/system/cpu
cat /proc/self/mounts > $out/proc/self/mounts
cat /sys/devices/system/cpu/online > $out/sys/devices/system/cpu/online
for r in cpu memory io; do cat /proc/pressure/$r > $out/proc/pressure/$r; done
