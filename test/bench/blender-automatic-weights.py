# Blender's automatic weights (bone heat) on a rigged glTF, for the binding benchmark (binding.bench.ts):
#   blender -b --factory-startup --python blender-automatic-weights.py -- IN.glb|IN.gltf OUT.json
# Imports the file with merged vertices, drops the file's own vertex groups, binds every skinned mesh to its
# armature in the rest pose with parent_set(type='ARMATURE_AUTO'), and writes each vertex's position (in
# glTF's axes, +Y up) and its weights by bone (joint node) name, with the bind time.
import bpy, json, sys, time
import numpy

# Debian's Blender 3.4 importer still names numpy.bool, which numpy 1.24 removed.
if "bool" not in numpy.__dict__:
    numpy.bool = bool

args = sys.argv[sys.argv.index("--") + 1:]
source, out = args[0], args[1]
bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.import_scene.gltf(filepath=source, merge_vertices=True)

armatures = [o for o in bpy.context.scene.objects if o.type == "ARMATURE"]
meshes = [o for o in bpy.context.scene.objects if o.type == "MESH" and any(m.type == "ARMATURE" for m in o.modifiers)]
armature = armatures[0]
armature.data.pose_position = "REST"
for mesh in meshes:
    mesh.vertex_groups.clear()
    for modifier in [m for m in mesh.modifiers if m.type == "ARMATURE"]:
        mesh.modifiers.remove(modifier)

bpy.ops.object.select_all(action="DESELECT")
for mesh in meshes:
    mesh.select_set(True)
armature.select_set(True)
bpy.context.view_layer.objects.active = armature
start = time.perf_counter()
bpy.ops.object.parent_set(type="ARMATURE_AUTO")
bind_ms = 1000 * (time.perf_counter() - start)

vertices = []
for mesh in meshes:
    names = [g.name for g in mesh.vertex_groups]
    for v in mesh.data.vertices:
        # The mesh's own coordinates, as glTF skins them (a skinned mesh's node transform does not apply); Blender is
        # +Z up: glTF's (x, y, z) is Blender's (x, -z, y).
        p = v.co
        vertices.append({"p": [p.x, p.z, -p.y], "w": {names[g.group]: g.weight for g in v.groups if g.weight > 0}})
with open(out, "w") as f:
    json.dump({"version": bpy.app.version_string, "bindMs": bind_ms, "vertices": vertices}, f)
print(f"blender_weights {source}: {len(vertices)} vertices, {bind_ms:.0f} ms")
