/*
 * Playing a character on the skelmap C ABI alone (C99): a walk fading into a run, the torso
 * playing a third clip on a bone range over both, then each frame posed, an attachment
 * placed and the first mesh skinned.
 *
 *   character MODEL WALK RUN TORSO FIRST LAST HAND [FRAMES]
 *
 * WALK, RUN and TORSO name frame groups (as `skelmap info` lists them); FIRST..LAST is the
 * inclusive bone range the torso clip plays, bones numbered as `skelmap info` prints them;
 * HAND names an attachment (a tag, an attachment bone) or else any bone, where a weapon
 * would hang. The legs (every other bone) cross-fade from WALK to RUN between 0.2 and 0.6 s.
 * It plays FRAMES frames (8 by default) 0.1 s apart and prints one line per frame: the two
 * weights, where HAND is and where vertex 0 of the first mesh is. Every status is checked;
 * on failure it prints skelmap_last_error() and exits 1.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skelmap.h"

static bool ok(SkelmapStatus s, const char *what) {
    if (s == SKELMAP_STATUS_OK) return true;
    char msg[512];
    skelmap_last_error(msg, sizeof msg);
    fprintf(stderr, "%s: %s (%s)\n", what, msg, skelmap_status_str((uint32_t)s));
    return false;
}

/* Every call's status checked: the message of a failure, then the clean-up. */
#define TRY(call) \
    if (!ok((call), #call)) goto out

/* The index of the frame group named `name`, or -1. */
static int32_t find_clip(const SkelmapModel *model, uint32_t groups, const char *name) {
    for (uint32_t g = 0; g < groups; g++) {
        char buf[64];
        size_t n = skelmap_frame_group_name(model, g, buf, sizeof buf);
        if (n < sizeof buf && strcmp(buf, name) == 0) return (int32_t)g;
    }
    return -1;
}

int main(int argc, char **argv) {
    if (argc < 8) {
        fprintf(stderr, "usage: %s MODEL WALK RUN TORSO FIRST LAST HAND [FRAMES]\n", argv[0]);
        return 2;
    }
    uint32_t first = (uint32_t)strtoul(argv[5], NULL, 10);
    uint32_t last = (uint32_t)strtoul(argv[6], NULL, 10);
    int frames = argc > 8 ? atoi(argv[8]) : 8;
    int rc = 1;
    SkelmapModel *model = NULL;
    SkelmapLocalPose *rest = NULL, *walk_pose = NULL, *run_pose = NULL, *torso_pose = NULL,
                     *blended = NULL;
    SkelmapBlender *blender = NULL;
    SkelmapPose *pose = NULL;
    float *legs = NULL, (*xyz)[3] = NULL;
    SkelmapCounts counts;
    SkelmapMeshInfo mesh;

    TRY(skelmap_model_open_file(argv[1], 0, &model));
    TRY(skelmap_model_counts(model, &counts));
    int32_t walk = find_clip(model, counts.frame_groups, argv[2]);
    int32_t run = find_clip(model, counts.frame_groups, argv[3]);
    int32_t torso = find_clip(model, counts.frame_groups, argv[4]);
    if (walk < 0 || run < 0 || torso < 0) {
        fprintf(stderr, "no clip named %s, %s or %s\n", argv[2], argv[3], argv[4]);
        goto out;
    }
    if (counts.bones == 0 || counts.meshes == 0 || first > last || first >= counts.bones) {
        fprintf(stderr, "need bones, a mesh and a bone range within the skeleton\n");
        goto out;
    }
    TRY(skelmap_mesh_info(model, 0, &mesh));
    /* HAND: an attachment by name, else a bone by name. */
    int32_t attachment = skelmap_attachment_index(model, argv[7]);
    int32_t hand = attachment >= 0 ? attachment : skelmap_bone_index(model, argv[7]);
    if (hand < 0) {
        fprintf(stderr, "no attachment or bone named %s\n", argv[7]);
        goto out;
    }

    /* Made once, reused every frame: after the first frame nothing is allocated. */
    TRY(skelmap_local_pose_new(&rest));
    TRY(skelmap_local_pose_new(&walk_pose));
    TRY(skelmap_local_pose_new(&run_pose));
    TRY(skelmap_local_pose_new(&torso_pose));
    TRY(skelmap_local_pose_new(&blended));
    TRY(skelmap_blender_new(&blender));
    TRY(skelmap_pose_new(&pose));
    TRY(skelmap_local_pose_bind(rest, model));
    /* The legs play every bone but the torso's; the torso layer plays FIRST..LAST. */
    legs = malloc(counts.bones * sizeof *legs);
    xyz = malloc((mesh.vertices ? mesh.vertices : 1) * sizeof *xyz);
    if (!legs || !xyz) goto out;
    for (uint32_t b = 0; b < counts.bones; b++) legs[b] = (b >= first && b <= last) ? 0.0f : 1.0f;

    for (int frame = 0; frame < frames; frame++) {
        float t = 0.1f * (float)frame;
        /* -- the loop -- */
        float from, to, at[12]; /* at: row-major 3×4, the translation in column 3 */
        TRY(skelmap_crossfade(t - 0.2f, 0.4f, &from, &to)); /* walk → run from 0.2 s on */
        TRY(skelmap_local_pose_sample_clip(walk_pose, model, (uint32_t)walk, t, true));
        TRY(skelmap_local_pose_sample_clip(run_pose, model, (uint32_t)run, t, true));
        TRY(skelmap_local_pose_sample_clip(torso_pose, model, (uint32_t)torso, t, true));
        SkelmapLayer layers[3] = {
            {walk_pose, from, SKELMAP_MASK_WEIGHTS, 0, 0, legs, counts.bones},
            {run_pose, to, SKELMAP_MASK_WEIGHTS, 0, 0, legs, counts.bones},
            {torso_pose, 1.0f, SKELMAP_MASK_RANGE, first, last, NULL, 0},
        };
        TRY(skelmap_blend(blender, rest, layers, 3, 0.1f, blended));
        TRY(skelmap_pose_from_local(pose, model, blended));
        TRY(attachment >= 0 ? skelmap_attachment_world(model, pose, (uint32_t)hand, at)
                            : skelmap_pose_bone_world(pose, (uint32_t)hand, at));
        TRY(skelmap_model_skin(model, pose, 0, xyz[0], 0, NULL, 0, mesh.vertices));
        /* -- end of the loop -- */
        printf("frame %d t=%.2f walk=%.4f run=%.4f attachment=%.6f,%.6f,%.6f vertex0=%.6f,%.6f,%.6f\n",
               frame, (double)t, (double)from, (double)to, (double)at[3], (double)at[7],
               (double)at[11], (double)xyz[0][0], (double)xyz[0][1], (double)xyz[0][2]);
    }
    rc = 0;
out:
    free(legs);
    free(xyz);
    skelmap_pose_free(pose);
    skelmap_blender_free(blender);
    skelmap_local_pose_free(blended);
    skelmap_local_pose_free(torso_pose);
    skelmap_local_pose_free(run_pose);
    skelmap_local_pose_free(walk_pose);
    skelmap_local_pose_free(rest);
    skelmap_model_free(model);
    return rc;
}
