/**
 * Programs that run another program named in their arguments (`sudo cat f`,
 * `flock /tmp/l cat f`, `strace -o log cat f`), and how to find it. Pure
 * data: the guard skips a wrapper's options and positional operands and
 * judges the program that follows, or the command line it runs (`flock l -c
 * 'cat f'`, `su -c 'cat f'`, `watch cat f`).
 */
import type { OptionSpec } from "./options.ts";

export interface Wrapper {
  readonly spec: OptionSpec;
  /** Operands the wrapper takes before the program (`timeout DURATION cmd`, `flock FILE cmd`). */
  readonly positionals?: number;
  /** Options whose value is a shell command line (`flock f -c 'cmd'`, `su -c 'cmd'`), checked as a script. */
  readonly scriptOptions?: readonly string[];
  /** Options may follow operands (`su user -c cmd`): look for the script option among all arguments. */
  readonly scriptOptionAnywhere?: boolean;
  /** Options after which the program follows directly, so a later `-c` is the program's own (`runuser -u me grep -c x f`). */
  readonly programAfter?: readonly string[];
  /** The remaining words are one command line the wrapper hands to `sh -c` (`watch cat f`), unless one of these flags is given. */
  readonly scriptOperands?: { readonly unlessFlags: string; readonly unlessLong: readonly string[] };
  /** The program comes only from a script option; without one there is no program to judge (`script out.log`). */
  readonly onlyScript?: boolean;
}

/** Wrappers by base name. */
export const WRAPPERS: ReadonlyMap<string, Wrapper> = new Map<string, Wrapper>([
  ["env", { spec: { withArg: "uCS", longWithArg: ["unset", "chdir", "split-string"] } }],
  [
    "sudo",
    {
      spec: {
        withArg: "ugpChDrtTUR",
        longWithArg: ["user", "group", "prompt", "close-from", "host", "chdir", "role", "type", "command-timeout", "other-user", "chroot"],
      },
    },
  ],
  ["doas", { spec: { withArg: "uC" } }],
  ["pkexec", { spec: { longWithArg: ["user"] } }],
  ["command", { spec: {} }],
  ["builtin", { spec: {} }],
  ["exec", { spec: { withArg: "a" } }],
  ["nohup", { spec: {} }],
  ["setsid", { spec: {} }],
  ["nice", { spec: { withArg: "n", longWithArg: ["adjustment"] } }],
  ["ionice", { spec: { withArg: "cnp", longWithArg: ["class", "classdata", "pid"] } }],
  ["chrt", { spec: { withArg: "TPD", longWithArg: ["sched-runtime", "sched-period", "sched-deadline"] }, positionals: 1 }],
  ["taskset", { spec: {}, positionals: 1 }],
  ["numactl", { spec: { withArg: "CNmpiP", longWithArg: ["cpunodebind", "physcpubind", "membind", "preferred", "interleave", "cpubind"] } }],
  ["cpulimit", { spec: { withArg: "pleL", longWithArg: ["pid", "limit", "exe", "path"] } }],
  ["prlimit", { spec: { withArg: "po", longWithArg: ["pid", "output"] } }],
  ["time", { spec: { withArg: "fo", longWithArg: ["format", "output"] } }],
  ["timeout", { spec: { withArg: "sk", longWithArg: ["signal", "kill-after"] }, positionals: 1 }],
  ["stdbuf", { spec: { withArg: "ioe", longWithArg: ["input", "output", "error"] } }],
  ["unbuffer", { spec: {} }],
  ["eatmydata", { spec: {} }],
  ["nocache", { spec: {} }],
  ["chronic", { spec: {} }],
  ["catchsegv", { spec: {} }],
  ["fakeroot", { spec: { withArg: "ils", longWithArg: ["lib", "faked"] } }],
  ["faketime", { spec: { withArg: "" }, positionals: 1 }],
  [
    "rlwrap",
    {
      spec: {
        withArg: "aAbCDeEfFgHlmOopPsStTwz",
        longWithArg: ["break-chars", "command-name", "file", "history-filename", "logfile", "prompt-colour", "substitute-prompt"],
      },
    },
  ],
  ["proxychains", { spec: { withArg: "f" } }],
  ["proxychains4", { spec: { withArg: "f" } }],
  ["torsocks", { spec: { withArg: "uapP", longWithArg: ["user", "pass", "address", "port"] } }],
  ["firejail", { spec: {} }],
  ["sandbox-exec", { spec: { withArg: "fpD" } }],
  [
    "systemd-run",
    {
      spec: {
        withArg: "upEM",
        longWithArg: [
          "unit",
          "property",
          "description",
          "slice",
          "uid",
          "gid",
          "nice",
          "working-directory",
          "setenv",
          "machine",
          "host",
          "service-type",
          "on-active",
          "on-boot",
          "on-calendar",
        ],
      },
    },
  ],
  ["flock", { spec: { withArg: "wEc", longWithArg: ["timeout", "wait", "conflict-exit-code", "command"] }, positionals: 1, scriptOptions: ["c", "command"] }],
  ["chroot", { spec: { longWithArg: ["userspec", "groups"] }, positionals: 1 }],
  ["unshare", { spec: { withArg: "SGRw", longWithArg: ["setuid", "setgid", "root", "wd", "map-user", "map-group", "propagation", "setgroups"] } }],
  ["nsenter", { spec: { withArg: "tSG", longWithArg: ["target", "setuid", "setgid"] } }],
  [
    "setpriv",
    {
      spec: {
        longWithArg: [
          "reuid",
          "regid",
          "ruid",
          "rgid",
          "euid",
          "egid",
          "groups",
          "inh-caps",
          "ambient-caps",
          "bounding-set",
          "securebits",
          "pdeathsig",
          "selinux-label",
          "apparmor-profile",
        ],
      },
    },
  ],
  [
    "strace",
    {
      spec: {
        withArg: "abeEIoOpPsSuUX",
        longWithArg: [
          "output",
          "attach",
          "user",
          "env",
          "string-limit",
          "trace",
          "signal",
          "status",
          "trace-path",
          "columns",
          "detach-on",
          "summary-columns",
          "summary-sort-by",
          "expr",
        ],
      },
    },
  ],
  ["ltrace", { spec: { withArg: "aAeEFlLnopsuwxX", longWithArg: ["align", "output", "indent", "library"] } }],
  ["valgrind", { spec: {} }],
  ["busybox", { spec: {} }],
  ["toybox", { spec: {} }],
  [
    "su",
    {
      spec: { withArg: "cgGsw", longWithArg: ["command", "group", "supp-group", "shell", "whitelist-environment", "session-command"] },
      scriptOptions: ["c", "command", "session-command"],
      scriptOptionAnywhere: true,
      onlyScript: true,
    },
  ],
  [
    "runuser",
    {
      spec: { withArg: "ugGcw", longWithArg: ["user", "group", "supp-group", "command", "shell", "session-command", "whitelist-environment"] },
      scriptOptions: ["c", "command", "session-command"],
      scriptOptionAnywhere: true,
      programAfter: ["u", "user"],
    },
  ],
  [
    "script",
    {
      spec: { withArg: "cEIOBTm", longWithArg: ["command", "echo", "log-in", "log-out", "log-io", "log-timing", "logging-format"] },
      scriptOptions: ["c", "command"],
      scriptOptionAnywhere: true,
      onlyScript: true,
    },
  ],
  ["watch", { spec: { withArg: "dnq", longWithArg: ["interval", "differences", "equexit"] }, scriptOperands: { unlessFlags: "x", unlessLong: ["exec"] } }],
  [
    "xargs",
    {
      spec: {
        withArg: "aEdILnPs",
        longWithArg: ["arg-file", "delimiter", "eof", "replace", "max-lines", "max-args", "max-procs", "max-chars", "process-slot-var"],
      },
    },
  ],
  [
    "parallel",
    {
      spec: {
        withArg: "ajJnNPSX",
        longWithArg: ["arg-file", "jobs", "max-args", "max-replace-args", "sshlogin", "joblog", "results", "tmpdir", "delay", "timeout", "env"],
      },
    },
  ],
]);

/** Wrappers that run their program once per input item, on names read from input: everything they start works on files. */
export const RUNS_ON_FILE_NAMES: ReadonlySet<string> = new Set(["xargs", "parallel"]);
