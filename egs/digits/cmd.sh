# How run.sh runs its parallel jobs. Local (the default): utils/run.pl runs
# them on this machine. On a Slurm cluster: export NNET3_CMD=slurm (or edit
# the line below), put extra sbatch flags in conf/slurm.conf, and run the
# recipe from a directory that every node mounts at the same path
# (see docs/recipes.md).
case "${NNET3_CMD:-local}" in
  slurm) train_cmd="utils/slurm.pl --config conf/slurm.conf"
         decode_cmd="utils/slurm.pl --config conf/slurm.conf" ;;
  local) train_cmd="utils/run.pl"
         decode_cmd="utils/run.pl" ;;
  *) echo "cmd.sh: NNET3_CMD must be local or slurm, not '$NNET3_CMD'" >&2
     return 1 ;;
esac
