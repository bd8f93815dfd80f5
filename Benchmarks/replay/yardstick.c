/* The replay benchmark's yardstick: what reading the events file costs in plain C, with no engine.
 * It reads the file a line at a time (getline), finds each line's time and event name, parses the
 * time's digits and counts events per name in a small open-addressing table: the least a replay
 * must do before any rule is evaluated. Prints the events counted, so the work is not optimised
 * away. Usage: yardstick FILE */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    if (argc != 2) return 2;
    FILE *file = fopen(argv[1], "r");
    if (!file) return 1;
    static uint64_t keys[4096];
    static uint64_t counts[4096];
    char *line = NULL;
    size_t capacity = 0;
    ssize_t length;
    uint64_t events = 0, timeSum = 0;
    while ((length = getline(&line, &capacity, file)) > 0) {
        char *time = strstr(line, "\"t\":\"");
        if (time) {
            uint64_t value = 0;
            for (char *p = time + 5; *p && *p != '"'; p++)
                if (*p >= '0' && *p <= '9') value = value * 10 + (uint64_t)(*p - '0');
            timeSum += value;
        }
        char *name = strstr(line, "\"event\":\"");
        if (!name) continue;
        name += 9;
        uint64_t hash = 1469598103934665603ULL;
        for (char *p = name; *p && *p != '"'; p++) hash = (hash ^ (uint8_t)*p) * 1099511628211ULL;
        size_t slot = hash & 4095;
        while (keys[slot] && keys[slot] != hash) slot = (slot + 1) & 4095;
        keys[slot] = hash;
        counts[slot]++;
        events++;
    }
    free(line);
    fclose(file);
    printf("%llu events (%llu)\n", (unsigned long long)events, (unsigned long long)(timeSum & 0xffff));
    return 0;
}
