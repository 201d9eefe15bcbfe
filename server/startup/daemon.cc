// ForkServer, NotifyForkedParent and WritePidFile (see daemon.h). The parent and the child talk
// over one pipe: a byte from the child means "ready"; end of file means it ended first.
#include "server/startup/daemon.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace cairn::server {

namespace {

int g_ready_fd = -1;  // the child's end of the pipe to its parent, until it is ready

}  // namespace

bool ForkServer(std::string* error) {
  int fds[2];
  if (pipe(fds) != 0) {
    *error = std::string("cannot fork: pipe: ") + std::strerror(errno);
    return false;
  }
  std::printf("about to fork child process, waiting until server is ready for connections.\n");
  std::fflush(stdout);
  const pid_t child = fork();
  if (child < 0) {
    *error = std::string("cannot fork: ") + std::strerror(errno);
    return false;
  }
  if (child == 0) {
    close(fds[0]);
    g_ready_fd = fds[1];
    setsid();
    return true;
  }
  close(fds[1]);
  std::printf("forked process: %d\n", static_cast<int>(child));
  std::fflush(stdout);
  char byte = 0;
  ssize_t got;
  do {
    got = read(fds[0], &byte, 1);
  } while (got < 0 && errno == EINTR);
  if (got == 1) {
    std::printf("child process started successfully, parent exiting\n");
    std::fflush(stdout);
    _exit(0);
  }
  int status = 0;
  int code = 1;
  if (waitpid(child, &status, 0) == child) {
    code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  std::fprintf(stderr,
               "ERROR: child process failed, exited with %d\n"
               "To see additional information in this output, start without the \"--fork\" "
               "option.\n",
               code);
  _exit(code == 0 ? 1 : code);
}

void NotifyForkedParent() {
  if (g_ready_fd < 0) return;
  const char ready = 0;
  ssize_t wrote;
  do {
    wrote = write(g_ready_fd, &ready, 1);
  } while (wrote < 0 && errno == EINTR);
  close(g_ready_fd);
  g_ready_fd = -1;
  // The terminal belongs to the parent, which has exited: the log goes to --logpath.
  const int null_fd = open("/dev/null", O_RDWR);
  if (null_fd >= 0) {
    dup2(null_fd, STDIN_FILENO);
    dup2(null_fd, STDOUT_FILENO);
    dup2(null_fd, STDERR_FILENO);
    if (null_fd > STDERR_FILENO) close(null_fd);
  }
}

bool WritePidFile(const std::string& path, std::string* error) {
  FILE* file = std::fopen(path.c_str(), "w");
  if (file == nullptr) {
    *error = "cannot write pid file " + path + ": " + std::strerror(errno);
    return false;
  }
  std::fprintf(file, "%d\n", static_cast<int>(getpid()));
  const bool ok = std::fclose(file) == 0;
  if (!ok) *error = "cannot write pid file " + path + ": " + std::strerror(errno);
  // Readable by others, as mongod's (the umask would make it private).
  chmod(path.c_str(), 0644);
  return ok;
}

}  // namespace cairn::server
