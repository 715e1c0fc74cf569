#!/bin/bash
# SPDX-License-Identifier: MIT
# The multi-host path of scenarios/sweep, for real: starts a throwaway sshd on
# 127.0.0.1 (a random high port, its own host key, config and authorized key, in a
# temporary directory), runs a four-run sweep with a hosts file naming it, and leaves
# the results in WORKDIR/out for tests/check_sweep.c to check. Always stops the sshd
# (and the ssh connection master) it started.
#
# usage: tests/sweep_ssh.sh WORKDIR   (FUTEXSIM: the binary; run from the checkout)
# exit: the sweep's status; 77 (and a line "SKIP: reason") when sshd cannot run here.
set -u
work=$1
skip() {
	echo "SKIP: $*"
	exit 77
}
[ -x /usr/sbin/sshd ] || skip "/usr/sbin/sshd is missing (Debian package openssh-server)"

t=$work/ssh
mkdir -p "$t" && chmod 700 "$t" || exit 1
ssh-keygen -q -t ed25519 -N '' -C futexsim-test-host -f "$t/host_key" || exit 1
ssh-keygen -q -t ed25519 -N '' -C futexsim-test-user -f "$t/user_key" || exit 1
cp "$t/user_key.pub" "$t/authorized_keys"
# sshd running as root refuses to start without its privilege separation directory
# (Debian's init script creates it the same way).
if [ "$(id -u)" = 0 ] && ! [ -d /run/sshd ]; then
	mkdir -p -m 0755 /run/sshd || skip "cannot create /run/sshd"
fi

sshd_pid=""
cleanup() {
	ssh -F "$t/ssh_config" -O exit 127.0.0.1 2>/dev/null
	if [ -n "$sshd_pid" ]; then
		kill "$sshd_pid" 2>/dev/null
		wait "$sshd_pid" 2>/dev/null
	fi
}
trap cleanup EXIT

# A random port may be taken: a few tries, each with a fresh port.
for attempt in 1 2 3 4 5; do
	port=$((20000 + RANDOM % 40000))
	cat >"$t/sshd_config" <<EOF
Port $port
ListenAddress 127.0.0.1
HostKey $t/host_key
PidFile $t/sshd.pid
AuthorizedKeysFile $t/authorized_keys
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
PermitRootLogin prohibit-password
# the key files live under /tmp, which StrictModes would reject (world-writable)
StrictModes no
EOF
	# StrictHostKeyChecking off: the host key is new every run. The connection master
	# saves the ~0.25 s handshake on each of parallel's ssh and rsync calls.
	cat >"$t/ssh_config" <<EOF
Host *
  Port $port
  IdentityFile $t/user_key
  IdentitiesOnly yes
  StrictHostKeyChecking no
  UserKnownHostsFile /dev/null
  BatchMode yes
  LogLevel ERROR
  ConnectTimeout 5
  ControlMaster auto
  ControlPath $t/cm-%C
  ControlPersist 60
EOF
	/usr/sbin/sshd -t -f "$t/sshd_config" 2>"$t/sshd.log" || skip "sshd rejects a minimal config: $(head -n 1 "$t/sshd.log")"
	/usr/sbin/sshd -D -e -f "$t/sshd_config" 2>"$t/sshd.log" &
	sshd_pid=$!
	for _ in $(seq 50); do
		kill -0 "$sshd_pid" 2>/dev/null || break
		grep -q "Server listening" "$t/sshd.log" && break
		sleep 0.1
	done
	if kill -0 "$sshd_pid" 2>/dev/null && grep -q "Server listening" "$t/sshd.log"; then
		break
	fi
	kill "$sshd_pid" 2>/dev/null
	wait "$sshd_pid" 2>/dev/null
	sshd_pid=""
done
[ -n "$sshd_pid" ] || skip "sshd does not start: $(tail -n 1 "$t/sshd.log")"
if ! ssh -F "$t/ssh_config" 127.0.0.1 true; then
	echo "FAIL: sshd runs on 127.0.0.1:$port but the key login fails; sshd said:"
	cat "$t/sshd.log"
	exit 1
fi

echo 127.0.0.1 >"$work/hosts"
PARALLEL_SSH="ssh -F $t/ssh_config" scenarios/sweep scenarios/quickstart.yaml "$work/out" \
	--hosts "$work/hosts" -j 2 --param kernel.private_hash.buckets=2,16 --param run.seed=1,2 \
	-- --set run.duration=200us --set run.warmup=20us
