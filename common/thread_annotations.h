// Clang's thread-safety annotations (LevelDB's port/thread_annotations.h): mutex-protected state
// says which mutex guards it (GUARDED_BY), functions say which they need (REQUIRES) or take
// (ACQUIRE/RELEASE), and clang's -Wthread-safety checks every access at compile time. CI builds
// the TSan configuration with clang and -Werror=thread-safety (CMakeLists.txt). Other compilers
// see nothing. Annotate through common/mutex.h's Mutex: libstdc++'s std::mutex carries no
// annotations.
#pragma once

#if defined(__clang__)
#define CAIRN_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define CAIRN_THREAD_ANNOTATION(x)
#endif

#define CAPABILITY(x) CAIRN_THREAD_ANNOTATION(capability(x))
#define SCOPED_CAPABILITY CAIRN_THREAD_ANNOTATION(scoped_lockable)
#define GUARDED_BY(x) CAIRN_THREAD_ANNOTATION(guarded_by(x))
#define PT_GUARDED_BY(x) CAIRN_THREAD_ANNOTATION(pt_guarded_by(x))
#define REQUIRES(...) CAIRN_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
#define REQUIRES_SHARED(...) CAIRN_THREAD_ANNOTATION(requires_shared_capability(__VA_ARGS__))
#define ACQUIRE(...) CAIRN_THREAD_ANNOTATION(acquire_capability(__VA_ARGS__))
#define ACQUIRE_SHARED(...) CAIRN_THREAD_ANNOTATION(acquire_shared_capability(__VA_ARGS__))
#define RELEASE(...) CAIRN_THREAD_ANNOTATION(release_capability(__VA_ARGS__))
#define RELEASE_SHARED(...) CAIRN_THREAD_ANNOTATION(release_shared_capability(__VA_ARGS__))
#define RELEASE_GENERIC(...) CAIRN_THREAD_ANNOTATION(release_generic_capability(__VA_ARGS__))
#define TRY_ACQUIRE(...) CAIRN_THREAD_ANNOTATION(try_acquire_capability(__VA_ARGS__))
#define EXCLUDES(...) CAIRN_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))
#define ASSERT_CAPABILITY(x) CAIRN_THREAD_ANNOTATION(assert_capability(x))
#define RETURN_CAPABILITY(x) CAIRN_THREAD_ANNOTATION(lock_returned(x))
#define NO_THREAD_SAFETY_ANALYSIS CAIRN_THREAD_ANNOTATION(no_thread_safety_analysis)
