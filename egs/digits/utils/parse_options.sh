# shellcheck shell=bash
# parse_options.sh: command-line options for recipe scripts, Kaldi style.
#
# Source this file after the script has given every option variable its
# default value:
#     nj=4; use_gpu=false; . utils/parse_options.sh
# Then `--use-gpu true` or `--use-gpu=true` sets $use_gpu (dashes in the
# option name become underscores).
#
# Invariants:
#   - Only variables that already exist can be set; an unknown option is one
#     error line on stderr naming it, then exit 1.
#   - A variable whose current value is true or false only accepts true or
#     false.
#   - `--config FILE` (any number, any position among the options) sources a
#     file of name=value lines before the other options are applied, so the
#     command line wins over the file.
#   - `--help` / `-h` prints $help_message (when set) to stdout and exits 0.
#   - Options end at the first argument that does not start with `--` (or
#     after a lone `--`, which is dropped); the rest stay in "$@".
#   - Safe under `set -euo pipefail`; its own helper variables start with
#     __po_ and are unset before returning.

__po_die() {
  echo "$0: $*" >&2
  exit 1
}

# Sets variable $1 (option spelling $2) to $3 after checking it may be set.
# Uses no local variables, so an option may name any variable (even "var").
__po_set() {
  if [[ ! $1 =~ ^[A-Za-z_][A-Za-z0-9_]*$ || $1 == __po_* ]]; then
    __po_die "invalid option name '$2'"
  fi
  if [[ -z ${!1+set} ]]; then
    __po_die "invalid option $2 (no variable '$1' to set)"
  fi
  if [[ ${!1} == true || ${!1} == false ]]; then
    if [[ $3 != true && $3 != false ]]; then
      __po_die "option $2 takes true or false, got '$3'"
    fi
  fi
  printf -v "$1" '%s' "$3"
}

# Pass 1: the config files, in the order given.
__po_args=("$@")
__po_i=0
while (( __po_i < ${#__po_args[@]} )); do
  __po_a=${__po_args[__po_i]}
  case $__po_a in
    --) break ;;
    --config=*)
      __po_f=${__po_a#--config=} ;;
    --config)
      if (( __po_i + 1 >= ${#__po_args[@]} )); then
        __po_die "option --config needs a file name"
      fi
      __po_i=$((__po_i + 1))
      __po_f=${__po_args[__po_i]} ;;
    --*=*) __po_i=$((__po_i + 1)); continue ;;
    --*) __po_i=$((__po_i + 2)); continue ;;
    -h) break ;;
    *) break ;;
  esac
  if [[ ! -r $__po_f ]]; then
    __po_die "config file '$__po_f' does not exist or is not readable"
  fi
  # shellcheck disable=SC1090
  . "$__po_f"
  __po_i=$((__po_i + 1))
done

# Pass 2: every other option; stop at the first positional argument.
while (( $# > 0 )); do
  case $1 in
    --help|-h)
      if [[ -n ${help_message:-} ]]; then
        printf '%s\n' "$help_message"
      fi
      exit 0 ;;
    --)
      shift
      break ;;
    --config=*)
      shift ;;
    --config)
      shift 2 ;;
    --*=*)
      __po_o=${1%%=*}
      __po_v=${1#*=}
      __po_n=${__po_o#--}
      __po_set "${__po_n//-/_}" "$__po_o" "$__po_v"
      shift ;;
    --?*)
      __po_o=$1
      if (( $# < 2 )); then
        __po_die "option $__po_o needs a value"
      fi
      __po_n=${__po_o#--}
      __po_set "${__po_n//-/_}" "$__po_o" "$2"
      shift 2 ;;
    *)
      break ;;
  esac
done

unset -v __po_args __po_i __po_a __po_f __po_o __po_v __po_n
unset -f __po_die __po_set
true
