"""The learner's door: the names of mishran that the lessons and docs tell a learner to call with values of their own,
and the command lines a learner types. These, and only these, check what they are given and answer a mistake with a
Bengali message and the English key term; every other function trusts its caller (the lessons and the package itself),
as torch's own internals do. A learner types values (numbers, names, text, sizes, flags, configs); the objects a door
name also takes (a model, an optimizer, a GradScaler, an autocast context, a loss function, a DeepSpeed engine, a
tokenizer) come from torch or the course's own code and are trusted like any caller's. tests/test_fuzz.py fuzzes the
value arguments of exactly these names (its OBJECT_ARGS lists the object arguments it leaves alone), and
tests/test_command_lines.py every flag of every command line; docs/contributing.md gives the rule. A name joins the
list when a lesson invites the learner to call it with their own values (an exercise, a "try it" cell, a widget, a
config) — not merely because a lesson calls it.
"""

DOOR = {
    "mishran.numerics.formats": ["decode", "decode_bits", "encode", "round_to", "spacing", "get_format"],
    "mishran.numerics.scaling": ["underflow_report", "simulate", "StaticLossScaler", "DynamicLossScaler",
                                 "DeepSpeedLossScaler"],
    "mishran.numerics.fp8": ["compute_scale", "quantize", "scaled_matmul"],
    "mishran.numerics.int8": ["int8_scale", "to_int8", "dequantize", "quantize_dynamic"],
    "mishran.numerics.communication": ["ring_reduce_scatter", "error_sweep"],
    "mishran.precision": ["for_device", "resolve", "dtype_of", "name_of", "needs_loss_scaling", "autocast",
                          "grad_scaler"],
    "mishran.hardware": ["device_report", "supports"],
    "mishran.data": ["CharDataset", "CharTokenizer", "synthetic_regression"],
    "mishran.models.mlp": ["MLP"],
    "mishran.models.gpt": ["GPTConfig", "TinyGPT"],
    "mishran.models.reference": ["BenchSizes"],
    "mishran.engines.amp": ["TrainConfig", "train", "amp_step", "save_checkpoint", "load_checkpoint"],
    "mishran.engines.deepspeed_config": ["config_for_device", "validate_config", "zero_model_state_bytes"],
    "mishran.engines.deepspeed_engine": ["initialize"],
    "mishran.measure.memory": ["measure_step"],
    "mishran.measure.bench": ["run"],
    "mishran.measure.profiler": ["profile_step", "time_matmul"],
    "mishran.measure.flops": ["mfu"],
    "mishran.capstone.training": ["CapstoneConfig", "run"],
    "mishran.capstone.evaluation": ["sample", "bigram_bpc"],
    "mishran.capstone.literature": ["LiteratureData"],
    "mishran.checkup.run": ["checkup"],
    "mishran.checkup.keep": ["KeepFP32"],
    "mishran.lab.display": ["show_source", "show_table"],
    "mishran.lab.checkup": ["show_checkup", "module_range_figure"],
    "mishran.lab.widgets": ["explore", "bit_explorer", "loss_scale_simulator"],
}
"""module → the names a learner is invited to call with their own values. Every exercise checker
(mishran.exercises.lessonNN.check_*) is a door too; test_exercises_* give each one wrong answers."""

COMMAND_LINES = ["mishran.measure.bench", "mishran.measure.profiler", "mishran.measure.memory",
                 "mishran.engines.multi_gpu", "mishran.engines.fsdp", "mishran.engines.ddp", "mishran.capstone",
                 "mishran.capstone.check", "mishran.checkup"]
"""What a learner runs as `python -m ...`: a wrong flag or value gives one line and exit status 2, never a traceback."""
