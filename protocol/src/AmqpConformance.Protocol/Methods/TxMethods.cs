// Method records of the AMQP 0-9-1 "tx" class (id 90), argument lists as in RabbitMQ's
// amqp-rabbitmq-0.9.1 specification. Kept in one file per class so a reader sees the class at once.
namespace AmqpConformance.Protocol;

/// <summary>Puts the channel into transactional mode.</summary>
[AmqpMethod(90, 10, "tx.select")]
public sealed partial record TxSelect : AmqpMethod;

/// <summary>Confirms tx.select.</summary>
[AmqpMethod(90, 11, "tx.select-ok")]
public sealed partial record TxSelectOk : AmqpMethod;

/// <summary>Commits the current transaction.</summary>
[AmqpMethod(90, 20, "tx.commit")]
public sealed partial record TxCommit : AmqpMethod;

/// <summary>Confirms tx.commit.</summary>
[AmqpMethod(90, 21, "tx.commit-ok")]
public sealed partial record TxCommitOk : AmqpMethod;

/// <summary>Abandons the current transaction.</summary>
[AmqpMethod(90, 30, "tx.rollback")]
public sealed partial record TxRollback : AmqpMethod;

/// <summary>Confirms tx.rollback.</summary>
[AmqpMethod(90, 31, "tx.rollback-ok")]
public sealed partial record TxRollbackOk : AmqpMethod;
