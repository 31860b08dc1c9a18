#!/usr/bin/env perl
# slurm.pl: run.pl's command line and log format, but every job is a task of
# one Slurm job array submitted with sbatch.
#
#   slurm.pl [options] [VAR=A:B] LOGFILE COMMAND...
#     --max-jobs-run N   at most N tasks at once (sbatch --array=A-B%N;
#                        -tc N is accepted as an old spelling)
#     --num-threads N    sbatch --cpus-per-task=N (and threads=N in the log)
#     --mem X            sbatch --mem=X (e.g. 4G)
#     --gpu N            sbatch --gres=gpu:N (nothing when N is 0)
#     --partition P      sbatch --partition=P
#     --time T           sbatch --time=T
#     --config FILE      extra sbatch flags, see below
#     --max-wait S       give up (and scancel the job) after S seconds
#     --done-grace S     how long a task may be gone from squeue before its
#                        done file must be visible (default 60; covers NFS
#                        attribute caching)
#   VAR=A:B, LOGFILE and COMMAND mean what they mean for run.pl: VAR is
#   replaced by the task's number ($SLURM_ARRAY_TASK_ID) in LOGFILE and in the
#   command words, and the command is built and quoted the same way.
#
# Config file: one entry per line; blank lines and lines starting with # are
# skipped.
#     option NAME=VALUE    passes --NAME=VALUE to sbatch (option account=asr)
#     option NAME          passes --NAME to sbatch
#     -FLAGS ...           passed to sbatch as they are, split on white space
#                          (e.g. "--qos=short --nice=10")
# Config flags come before the ones made from the command line, so the
# command line wins where sbatch takes the last value.
#
# Files: with LOGFILE exp/log/x.JOB.log, slurm.pl writes the batch script
# exp/log/q/x.sh, Slurm writes each task's own output to exp/log/q/x.N.out and
# the batch script writes exp/log/q/x.N.done holding the exit code when the
# command has finished. THE EXPERIMENT DIRECTORY (the current directory, the
# log directory and every file the command touches) MUST BE ON A FILE SYSTEM
# THAT EVERY COMPUTE NODE SEES AT THE SAME PATH.
#
# Invariants:
#   - Each log has run.pl's header and footer lines.
#   - slurm.pl waits by polling for the done files (no accounting database
#     needed). A task that left squeue without a done file (cancelled, killed
#     at its time limit, node failure) counts as failed and slurm.pl names its
#     Slurm output file. With --max-wait it stops waiting, cancels the job
#     and counts the unfinished tasks as failed.
#   - Exit 0 only if every task exited 0; otherwise one line on stderr,
#     "slurm.pl: F / N failed, log is in PATTERN" (or "slurm.pl: job failed,
#     log is in LOG" for a single task), and exit 1.
#   - An interrupt or termination of slurm.pl cancels the job.
# Uses only modules from Debian's perl-base.
use strict;
use warnings;
use POSIX qw(strftime);
use File::Path qw(make_path);
use File::Basename qw(dirname basename);
use Cwd qw(getcwd);

my $me = 'slurm.pl';

sub usage_error {
  my ($msg) = @_;
  print STDERR "$me: $msg\n";
  print STDERR "usage: $me [--max-jobs-run N] [--num-threads N] [--mem X] "
    . "[--gpu N] [--partition P] [--time T] [--config FILE] [--max-wait S] "
    . "[VAR=A:B] LOGFILE COMMAND...\n";
  exit 1;
}

sub shell_quote {
  my ($w) = @_;
  $w =~ s/'/'\\''/g;
  return "'$w'";
}

# Options: --name VALUE or --name=VALUE.
my %opt = ('max-jobs-run' => 0, 'num-threads' => 1, 'gpu' => 0,
           'max-wait' => 0, 'done-grace' => 60);
my %known = map { $_ => 1 }
  qw(max-jobs-run num-threads mem gpu config partition time max-wait done-grace);
my %given;
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
  $given{$name} = 1;
}
for my $n ('max-jobs-run', 'num-threads', 'gpu', 'max-wait', 'done-grace') {
  usage_error("--$n must be a non-negative integer, got '$opt{$n}'")
    unless $opt{$n} =~ /^\d+$/;
}

# sbatch flags from the config file.
my @config_flags;
if (defined $opt{config}) {
  my $f = $opt{config};
  open(my $cf, '<', $f)
    or usage_error("cannot read config file '$f': $!");
  while (my $line = <$cf>) {
    chomp $line;
    $line =~ s/^\s+|\s+$//g;
    next if $line eq '' || $line =~ /^#/;
    if ($line =~ /^option\s+([A-Za-z][\w-]*)(?:=(.*))?$/) {
      push @config_flags, defined $2 ? "--$1=$2" : "--$1";
    } elsif ($line =~ /^-/) {
      push @config_flags, split(/\s+/, $line);
    } else {
      usage_error("$f line $.: expected 'option NAME=VALUE' or sbatch "
        . "flags starting with -, got '$line'");
    }
  }
  close($cf);
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
for my $prog (qw(sbatch squeue scancel)) {
  my $found = grep { -x "$_/$prog" } split(/:/, $ENV{PATH} // '');
  usage_error("$prog not found in PATH (is Slurm installed?)") unless $found;
}

# The command with VAR still in it; the batch script substitutes the task id.
my $cmd = @words == 1 ? $words[0]
  : join(' ', map { /[\s']/ ? shell_quote($_) : $_ } @words);

sub with_id {
  my ($s, $id) = @_;
  $s =~ s/\Q$var\E/$id/g if defined $var;
  return $s;
}

# Paths. The log directory of the first task holds q/.
my $cwd = getcwd();
my $abs_log = $logfile =~ m{^/} ? $logfile : "$cwd/$logfile";
my $qdir = dirname(with_id($abs_log, $first)) . '/q';
my $name = basename($logfile);
$name =~ s/\.log$//;
if (defined $var) { $name =~ s/\.\Q$var\E\b//g; $name =~ s/\Q$var\E//g; }
$name = 'job' if $name eq '';
my $script = "$qdir/$name.sh";
sub done_file { return "$qdir/$name.$_[0].done"; }
sub out_file  { return "$qdir/$name.$_[0].out"; }

for my $id ($first .. $last) {
  my $d = dirname(with_id($abs_log, $id));
  eval { make_path($d) unless -d $d; 1 }
    or do { print STDERR "$me: cannot create directory $d: $@"; exit 1; };
}
eval { make_path($qdir) unless -d $qdir; 1 }
  or do { print STDERR "$me: cannot create directory $qdir: $@"; exit 1; };
for my $id ($first .. $last) {
  for my $f (done_file($id), out_file($id)) {
    next unless -e $f;
    unlink($f) or do { print STDERR "$me: cannot remove old $f: $!\n"; exit 1; };
  }
}

# The batch script: one task of the array.
my $threads = $opt{'num-threads'};
my $subst = defined $var
  ? "cmd=\${cmd//$var/\$task}\nlog=\${log//$var/\$task}\n" : '';
my $started = strftime('%a %b %e %H:%M:%S %Z %Y', localtime);
(my $cmd_comment = $cmd) =~ s/\n/\n#   /g;
my $body = <<"EOF";
#!/usr/bin/env bash
# Written by slurm.pl at $started. Runs task \$SLURM_ARRAY_TASK_ID of
#   $cmd_comment
# with its log, then writes the exit code to the task's done file.
cd @{[shell_quote($cwd)]} || exit 1
task=\${SLURM_ARRAY_TASK_ID:?this script runs as a Slurm array task}
cmd=@{[shell_quote($cmd)]}
log=@{[shell_quote($abs_log)]}
${subst}done_file=@{[shell_quote("$qdir/$name.")]}\$task.done
mkdir -p "\$(dirname "\$log")"
{
  printf '# %s\\n' "\${cmd//\$'\\n'/ }"
  echo "# Started at \$(date)"
} >"\$log"
start=\$SECONDS
bash -c "set -o pipefail
\$cmd" >>"\$log" 2>&1 </dev/null
code=\$?
if [ -n "\$(tail -c 1 "\$log")" ]; then echo >>"\$log"; fi
echo "# Accounting: time=\$((SECONDS - start)) threads=$threads" >>"\$log"
echo "# Ended (code \$code) at \$(date)" >>"\$log"
echo "\$code" >"\$done_file.tmp" && mv "\$done_file.tmp" "\$done_file"
exit "\$code"
EOF
{
  open(my $sf, '>', $script)
    or do { print STDERR "$me: cannot write $script: $!\n"; exit 1; };
  print $sf $body;
  close($sf);
  chmod(0755, $script);
}

# Submit.
my $array = "$first-$last";
$array .= "%$opt{'max-jobs-run'}" if $opt{'max-jobs-run'} > 0;
my @sbatch = ('sbatch', '--parsable', "--job-name=$name",
              "--output=$qdir/$name.%a.out", "--array=$array", @config_flags);
push @sbatch, "--cpus-per-task=$threads" if $given{'num-threads'};
push @sbatch, "--mem=$opt{mem}" if defined $opt{mem};
push @sbatch, "--gres=gpu:$opt{gpu}" if $opt{gpu} > 0;
push @sbatch, "--partition=$opt{partition}" if defined $opt{partition};
push @sbatch, "--time=$opt{time}" if defined $opt{time};
push @sbatch, $script;
my $submit_out;
{
  my $ph;
  unless (open($ph, '-|', @sbatch)) {
    print STDERR "$me: cannot run sbatch: $!\n";
    exit 1;
  }
  local $/;
  $submit_out = <$ph> // '';
  close($ph);
}
if ($? != 0 || $submit_out !~ /^(\d+)/) {
  print STDERR "$me: submission failed: " . join(' ', @sbatch) . "\n";
  exit 1;
}
my $jobid = $1;

for my $sig (qw(INT TERM HUP)) {
  $SIG{$sig} = sub {
    system('scancel', $jobid);
    print STDERR "$me: caught SIG$sig, cancelled job $jobid\n";
    exit 1;
  };
}

# Tasks of $jobid that squeue still shows as queued or running, as a hash
# (task => state); undef if squeue could not answer.
my %active = map { $_ => 1 } qw(PENDING RUNNING CONFIGURING COMPLETING
  SUSPENDED REQUEUED REQUEUE_FED REQUEUE_HOLD RESIZING SIGNALING STAGE_OUT
  RESV_DEL_HOLD SPECIAL_EXIT STOPPED);
sub queued_tasks {
  my $out = `squeue -h -r --jobs=$jobid --states=all -o '%K %T' 2>&1`;
  if ($? != 0) {
    return {} if $out =~ /Invalid job id/i;   # already purged
    return undef;
  }
  my %q;
  for my $line (split /\n/, $out) {
    next unless $line =~ /^(\d+)\s+(\S+)/;
    $q{$1} = $2 if $active{$2};
  }
  return \%q;
}

# Wait for the done files.
my %pending = map { $_ => 1 } ($first .. $last);
my %gone_since;   # task => when it was first seen gone from squeue
my %code;         # task => exit code (from its done file)
my $t0 = time();
my $last_squeue = 0;
my $gave_up = 0;
while (%pending) {
  for my $id (keys %pending) {
    my $f = done_file($id);
    next unless -e $f;
    if (open(my $df, '<', $f)) {
      my $c = <$df>;
      close($df);
      if (defined $c && $c =~ /^(\d+)/) {
        $code{$id} = $1;
        delete $pending{$id};
        delete $gone_since{$id};
      }
    }
  }
  last unless %pending;
  my $now = time();
  if ($opt{'max-wait'} > 0 && $now - $t0 >= $opt{'max-wait'}) {
    system('scancel', $jobid);
    printf STDERR "%s: gave up after %d s waiting for job %s; %d task(s) "
      . "unfinished, cancelled\n", $me, $now - $t0, $jobid, scalar(keys %pending);
    $gave_up = 1;
    last;
  }
  my $squeue_every = $now - $t0 < 60 ? 2 : 10;
  if ($now - $last_squeue >= $squeue_every) {
    $last_squeue = $now;
    my $q = queued_tasks();
    if (defined $q) {
      for my $id (sort { $a <=> $b } keys %pending) {
        if (exists $q->{$id}) { delete $gone_since{$id}; next; }
        $gone_since{$id} //= $now;
        next if -e done_file($id);
        if ($now - $gone_since{$id} >= $opt{'done-grace'}) {
          print STDERR "$me: task $id of job $jobid left the queue without "
            . "finishing; its Slurm output is in " . out_file($id) . "\n";
          delete $pending{$id};
        }
      }
    }
  }
  sleep($now - $t0 < 60 ? 1 : 5);
}

my $total = $last - $first + 1;
my $failed = grep { !defined $code{$_} || $code{$_} != 0 } ($first .. $last);
exit 0 if $failed == 0;
if ($total == 1) {
  print STDERR "$me: job failed, log is in " . with_id($logfile, $first) . "\n";
} else {
  (my $pattern = $logfile) =~ s/\Q$var\E/*/g;
  print STDERR "$me: $failed / $total failed, log is in $pattern\n";
}
exit 1;
