#!/usr/bin/env perl
# run.pl: runs one command, or an array of numbered copies of it, on this
# machine, each with its own log file (Kaldi's local job runner interface).
#
#   run.pl [options] [VAR=A:B] LOGFILE COMMAND...
#     --max-jobs-run N   at most N jobs at once (default: all of them;
#                        -tc N is accepted as an old spelling)
#     --num-threads N    threads each job uses (only recorded in the log)
#     --mem X, --gpu N   accepted for queue compatibility and ignored
#     --config FILE      accepted for queue compatibility; must exist
#   VAR=A:B (e.g. JOB=1:8, TASK=0:3; VAR=N means VAR=N:N) runs jobs A..B;
#   every occurrence of VAR in LOGFILE and in the command words becomes the
#   job number.
#
# How the command is built: a single command word is a shell script run as
# is (`run.pl x.log "a | b > c"`); with several words, words without white
# space or single quotes are passed verbatim (so `\|` or '>' act as shell
# operators) and the others are quoted as one argument each
# (`prog "ark:cat x |" ark:-`).
# The result runs under `bash -c` with `set -o pipefail`, stdin /dev/null.
#
# Invariants:
#   - The log's directory is created. Each log starts with "# COMMAND" and
#     "# Started at DATE", then holds the job's stdout and stderr, and ends
#     with "# Accounting: time=SECONDS threads=N" and "# Ended (code C) at
#     DATE".
#   - run.pl returns only after every job has ended; it exits 0 only if all
#     of them exited 0. Otherwise it prints one line to stderr,
#     "run.pl: F / N failed, log is in PATTERN" (PATTERN is LOGFILE with VAR
#     replaced by *) or, for a single job, "run.pl: job failed, log is in
#     LOG", and exits 1.
#   - An interrupt or termination of run.pl is passed to all running jobs.
# Uses only modules from Debian's perl-base.
use strict;
use warnings;
use POSIX qw(strftime WNOHANG);
use File::Path qw(make_path);
use File::Basename qw(dirname);

my $me = 'run.pl';

sub usage_error {
  my ($msg) = @_;
  print STDERR "$me: $msg\n";
  print STDERR "usage: $me [--max-jobs-run N] [--num-threads N] [--mem X] "
    . "[--gpu N] [--config FILE] [VAR=A:B] LOGFILE COMMAND...\n";
  exit 1;
}

sub now_string { return strftime('%a %b %e %H:%M:%S %Z %Y', localtime); }

# Options: --name VALUE or --name=VALUE.
my %opt = ('max-jobs-run' => 0, 'num-threads' => 1);
my %known = map { $_ => 1 } qw(max-jobs-run num-threads mem gpu config);
while (@ARGV && $ARGV[0] =~ /^-/) {
  my $arg = shift @ARGV;
  last if $arg eq '--';
  my ($name, $value);
  if ($arg =~ /^--([^=]+)=(.*)$/s) {
    ($name, $value) = ($1, $2);
  } elsif ($arg =~ /^--(.+)$/ || $arg eq '-tc') {
    $name = $arg eq '-tc' ? 'max-jobs-run' : $1;
    usage_error("option $arg needs a value") unless @ARGV;
    $value = shift @ARGV;
  } else {
    usage_error("unknown option $arg");
  }
  usage_error("unknown option --$name") unless $known{$name};
  $opt{$name} = $value;
}
for my $n ('max-jobs-run', 'num-threads') {
  usage_error("--$n must be a non-negative integer, got '$opt{$n}'")
    unless $opt{$n} =~ /^\d+$/;
}
if (defined $opt{config} && !-r $opt{config}) {
  usage_error("config file '$opt{config}' does not exist or is not readable");
}

# Optional job array, then the log file and the command.
my ($var, $first, $last) = (undef, 1, 1);
if (@ARGV && $ARGV[0] =~ /^([A-Za-z_]\w*)=(\d+)(?::(\d+))?$/) {
  ($var, $first, $last) = ($1, $2, defined $3 ? $3 : $2);
  shift @ARGV;
  usage_error("empty job range $var=$first:$last") if $first > $last;
} elsif (@ARGV && $ARGV[0] =~ /^[A-Za-z_]\w*=/) {
  usage_error("bad job range '$ARGV[0]' (expected VAR=A:B)");
}
usage_error('missing LOGFILE and COMMAND') if @ARGV < 2;
my $logfile = shift @ARGV;
my @words = @ARGV;
if (defined $var && $last > $first && index($logfile, $var) < 0) {
  usage_error("$var=$first:$last runs several jobs but the log file "
    . "'$logfile' does not contain $var");
}

# Quotes a word as one shell argument.
sub shell_quote {
  my ($w) = @_;
  $w =~ s/'/'\\''/g;
  return "'$w'";
}

# The shell command for job $id.
sub job_command {
  my ($id) = @_;
  my @w = @words;
  if (defined $var) { s/\Q$var\E/$id/g for @w; }
  return $w[0] if @w == 1;
  return join(' ', map { /[\s']/ ? shell_quote($_) : $_ } @w);
}

sub job_log {
  my ($id) = @_;
  my $l = $logfile;
  $l =~ s/\Q$var\E/$id/g if defined $var;
  return $l;
}

# Runs job $id in the current (child) process and returns its exit status.
sub run_job {
  my ($id) = @_;
  my $log = job_log($id);
  my $cmd = job_command($id);
  my $dir = dirname($log);
  eval { make_path($dir) unless -d $dir; 1 }
    or do { print STDERR "$me: cannot create directory $dir: $@"; return 1; };
  my $fh;
  unless (open($fh, '>', $log)) {
    print STDERR "$me: cannot write log file $log: $!\n";
    return 1;
  }
  (my $oneline = $cmd) =~ s/\n/ /g;
  print $fh "# $oneline\n# Started at " . now_string() . "\n";
  close($fh);
  my $start = time();
  my $pid = fork();
  if (!defined $pid) {
    print STDERR "$me: fork failed: $!\n";
    return 1;
  }
  if ($pid == 0) {
    open(STDIN, '<', '/dev/null');
    open(STDOUT, '>>', $log) or POSIX::_exit(127);
    open(STDERR, '>&', \*STDOUT) or POSIX::_exit(127);
    exec('bash', '-c', "set -o pipefail\n$cmd") or POSIX::_exit(127);
  }
  waitpid($pid, 0);
  my $status = $?;
  my $code = ($status & 127) ? 128 + ($status & 127) : ($status >> 8);
  my $elapsed = time() - $start;
  if (open($fh, '+<', $log)) {
    # The footer starts on a line of its own even if the output did not end
    # with a newline.
    my $last = '';
    if (seek($fh, -1, 2)) { read($fh, $last, 1); }
    seek($fh, 0, 2);
    print $fh "\n" if $last ne "\n";
    print $fh "# Accounting: time=$elapsed threads=$opt{'num-threads'}\n";
    print $fh "# Ended (code $code) at " . now_string() . "\n";
    close($fh);
  }
  return $code;
}

# Start jobs, keeping at most max-jobs-run alive; each job runs in its own
# process group so that a signal can reach its whole pipeline.
my $max = $opt{'max-jobs-run'};
my %running;   # pid => job id
my $failed = 0;
for my $sig (qw(INT TERM HUP)) {
  $SIG{$sig} = sub {
    kill $sig, map { -$_ } keys %running;
    print STDERR "$me: caught SIG$sig, stopped the running jobs\n";
    exit 1;
  };
}

sub reap_one {
  my $pid = wait();
  return if $pid <= 0;
  if (exists $running{$pid}) {
    delete $running{$pid};
    $failed++ if $? != 0;
  }
}

for my $id ($first .. $last) {
  reap_one() while $max > 0 && keys(%running) >= $max;
  my $pid = fork();
  die "$me: fork failed: $!\n" unless defined $pid;
  if ($pid == 0) {
    setpgrp(0, 0);
    $SIG{$_} = 'DEFAULT' for qw(INT TERM HUP);
    my $code = run_job($id);
    POSIX::_exit($code == 0 ? 0 : 1);
  }
  $running{$pid} = $id;
}
reap_one() while keys %running;

exit 0 if $failed == 0;
my $total = $last - $first + 1;
if ($total == 1) {
  print STDERR "$me: job failed, log is in " . job_log($first) . "\n";
} else {
  (my $pattern = $logfile) =~ s/\Q$var\E/*/g;
  print STDERR "$me: $failed / $total failed, log is in $pattern\n";
}
exit 1;
