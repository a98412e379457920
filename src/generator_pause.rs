//! Pausing the self-play generator while `bench` or `speedtest` times the
//! engine, so a speed figure is never taken beside a busy generator.
//!
//! The generator service (`tools/selfplay.py`) keeps its runtime folder in
//! `KIRALY_SELFPLAY_RUNTIME`, else `<tmp>/kiraly-selfplay-<uid>`. A holder
//! writes a file naming its process into `holds/` and stops the generator
//! with SIGSTOP; on release it removes the file and lets the generator go on
//! (SIGCONT) when no live holder is left. The service's supervisor drops the
//! files of holders that died. Where no service runs (a user's machine, an
//! OpenBench worker) nothing happens. `KIRALY_NO_GENERATOR_PAUSE=1` turns
//! holding off.

/// A hold on the generator, released when dropped.
pub struct GeneratorPause {
    #[cfg(target_os = "linux")]
    file: std::path::PathBuf,
}

impl GeneratorPause {
    /// Pauses a running generator; `None` when there is none (or holding
    /// is turned off). Returns once the generator is stopped.
    pub fn hold(reason: &str) -> Option<GeneratorPause> {
        if std::env::var_os("KIRALY_NO_GENERATOR_PAUSE").is_some_and(|v| v == "1") {
            return None;
        }
        imp::hold(reason)
    }
}

impl Drop for GeneratorPause {
    fn drop(&mut self) {
        #[cfg(target_os = "linux")]
        imp::release(&self.file);
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    pub fn hold(_reason: &str) -> Option<super::GeneratorPause> {
        None
    }
}

#[cfg(target_os = "linux")]
mod imp {
    use super::GeneratorPause;
    use std::fs;
    use std::path::{Path, PathBuf};
    use std::time::{Duration, Instant};

    fn runtime_dir() -> PathBuf {
        match std::env::var_os("KIRALY_SELFPLAY_RUNTIME") {
            Some(dir) if !dir.is_empty() => PathBuf::from(dir),
            // SAFETY: getuid has no preconditions and cannot fail.
            _ => {
                std::env::temp_dir().join(format!("kiraly-selfplay-{}", unsafe { libc::getuid() }))
            }
        }
    }

    fn read_pid(path: &Path) -> Option<i32> {
        fs::read_to_string(path).ok()?.trim().parse().ok()
    }

    fn alive(pid: i32) -> bool {
        // A zombie has exited; its parent has only not reaped it yet.
        pid > 0
            && !matches!(
                process_state(&format!("/proc/{pid}/stat")),
                None | Some('Z' | 'X')
            )
    }

    fn process_state(stat: &str) -> Option<char> {
        let text = fs::read_to_string(stat).ok()?;
        text.rsplit_once(')')?
            .1
            .split_whitespace()
            .next()?
            .chars()
            .next()
    }

    fn signal(pid: i32, sig: libc::c_int) {
        // SAFETY: kill has no memory-safety preconditions; a vanished
        // process only makes it return an error, which is fine here.
        unsafe {
            libc::kill(pid, sig);
        }
    }

    fn generator(dir: &Path) -> Option<i32> {
        read_pid(&dir.join("datagen.pid")).filter(|&pid| alive(pid))
    }

    /// Waits until every thread of `pid` is stopped, for at most a second.
    fn wait_stopped(pid: i32) {
        let deadline = Instant::now() + Duration::from_secs(1);
        while Instant::now() < deadline {
            let Ok(tasks) = fs::read_dir(format!("/proc/{pid}/task")) else {
                return;
            };
            let running = tasks.flatten().any(|task| {
                let stat = task.path().join("stat");
                !matches!(
                    process_state(&stat.to_string_lossy()),
                    None | Some('T' | 't')
                )
            });
            if !running {
                return;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    pub fn hold(reason: &str) -> Option<GeneratorPause> {
        let dir = runtime_dir();
        let supervisor = read_pid(&dir.join("supervisor.pid"))?;
        if !alive(supervisor) {
            return None;
        }
        let holds = dir.join("holds");
        fs::create_dir_all(&holds).ok()?;
        let me = std::process::id();
        let file = holds.join(format!("{reason}-{me}"));
        // Written under a temporary name, so the service never reads half a file.
        let tmp = holds.join(format!("{reason}-{me}.tmp"));
        fs::write(&tmp, me.to_string()).ok()?;
        fs::rename(&tmp, &file).ok()?;
        if let Some(pid) = generator(&dir) {
            signal(pid, libc::SIGSTOP);
            wait_stopped(pid);
            eprintln!("kiraly: self-play generator {pid} paused while timing");
        }
        Some(GeneratorPause { file })
    }

    /// Whether another live process (or a manual pause) still holds.
    fn other_holds(holds: &Path) -> bool {
        let Ok(entries) = fs::read_dir(holds) else {
            return false;
        };
        entries.flatten().any(|entry| {
            let name = entry.file_name();
            !name.to_string_lossy().contains(".tmp")
                && read_pid(&entry.path()).is_some_and(|pid| pid == 0 || alive(pid))
        })
    }

    pub fn release(file: &Path) {
        let _ = fs::remove_file(file);
        let dir = runtime_dir();
        if !other_holds(&dir.join("holds")) {
            if let Some(pid) = generator(&dir) {
                signal(pid, libc::SIGCONT);
            }
        }
    }
}
