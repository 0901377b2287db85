#include "process_control.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

/// What the alarm writes and how the process ends; set before the alarm is armed.
static char *alarm_message;
static size_t alarm_length;
static int alarm_descriptor;
static int alarm_status;

/// Async-signal-safe calls only: write and _exit.
static void alarm_rang(int signal) {
    (void)signal;
    size_t written = 0;
    while (written < alarm_length) {
        ssize_t count = write(alarm_descriptor, alarm_message + written, alarm_length - written);
        if (count < 0 && errno == EINTR) continue;
        if (count <= 0) break;
        written += (size_t)count;
    }
    _exit(alarm_status);
}

int docpreview_watchdog_arm(double seconds, const char *message, int descriptor, int status) {
    if (!(seconds > 0) || seconds > 1e8) return EINVAL;
    docpreview_watchdog_disarm();
    char *copy = strdup(message);
    if (!copy) return ENOMEM;
    free(alarm_message);
    alarm_message = copy;
    alarm_length = strlen(copy);
    alarm_descriptor = descriptor;
    alarm_status = status;
    struct sigaction action;
    memset(&action, 0, sizeof(action));
    action.sa_handler = alarm_rang;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    if (sigaction(SIGALRM, &action, NULL) != 0) return errno;
    // A parent may have started this process with SIGALRM blocked (the mask survives exec).
    sigset_t alarm_only;
    sigemptyset(&alarm_only);
    sigaddset(&alarm_only, SIGALRM);
    int unblocked = pthread_sigmask(SIG_UNBLOCK, &alarm_only, NULL);
    if (unblocked != 0) return unblocked;
    struct itimerval timer;
    memset(&timer, 0, sizeof(timer));
    timer.it_value.tv_sec = (time_t)seconds;
    timer.it_value.tv_usec = (suseconds_t)((seconds - (double)timer.it_value.tv_sec) * 1e6);
    if (timer.it_value.tv_sec == 0 && timer.it_value.tv_usec == 0) timer.it_value.tv_usec = 1;
    return setitimer(ITIMER_REAL, &timer, NULL) == 0 ? 0 : errno;
}

void docpreview_watchdog_disarm(void) {
    struct itimerval off;
    memset(&off, 0, sizeof(off));
    setitimer(ITIMER_REAL, &off, NULL);
}
